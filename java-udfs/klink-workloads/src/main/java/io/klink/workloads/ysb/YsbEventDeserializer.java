package io.klink.workloads.ysb;

import io.klink.metrics.Envelope;
import io.klink.workloads.common.LineEventsDeserializer;
import java.io.IOException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * Parses a YSB ad event (JSON) into a DATA envelope keyed by ad id, value = event type code. Streaming
 * parse (no tree, no POJO binding): only ad_id, event_type and event_time are kept — YSB's projection.
 */
public class YsbEventDeserializer extends LineEventsDeserializer {

    public static final long VIEW = 0;
    public static final long CLICK = 1;
    public static final long PURCHASE = 2;
    public static final long OTHER = 3;

    private transient JsonFactory json;

    @Override
    protected Envelope parse(byte[] message, int offset, int length) throws IOException {
        if (json == null) {
            json = new JsonFactory();
        }
        String adId = null;
        long eventType = OTHER;
        long eventTime = Long.MIN_VALUE;
        try (JsonParser parser = json.createParser(message, offset, length)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("YSB event is not a JSON object");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                parser.nextToken();
                switch (field) {
                    case "ad_id" -> adId = parser.getText();
                    case "event_type" -> eventType = eventTypeCode(parser.getText());
                    case "event_time" -> eventTime = parser.getLongValue();
                    default -> parser.skipChildren();
                }
            }
        }
        if (adId == null || eventTime == Long.MIN_VALUE) {
            throw new IOException("YSB event lacks ad_id or event_time: " + new String(message, offset, length));
        }
        return Envelope.data(adId, eventTime, eventType);
    }

    static long eventTypeCode(String type) {
        return switch (type) {
            case "view" -> VIEW;
            case "click" -> CLICK;
            case "purchase" -> PURCHASE;
            default -> OTHER;
        };
    }
}
