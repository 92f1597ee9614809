package io.klink.workloads.ysb;

import io.klink.workloads.tail.RecordPipeline;
import io.klink.workloads.tail.RecordWork;
import io.klink.workloads.tail.TailRecord;
import io.klink.workloads.tail.TailRecordDeserializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * YSB's stateless front measured per record, as the tail seed measured Yahoo!'s topologies (§5.2): the Yahoo
 * streaming benchmark's Storm topology before its windows (deserialize, filter views, project, join ad to
 * campaign) as a {@link RecordPipeline} of four shuffle-connected stages over klink-generator's YSB events. A
 * record is created at its event time, gets its id from the spout (one per query) and ends after the join; the
 * filter drops the clicks and purchases, so the sinks expect the views only (klinkctl counts them in the input).
 * Payloads between stages are tab-separated fields.
 */
public final class YsbRecordsJob implements RecordPipeline.Workload {

    /** The fields of a YSB event, in the order the deserialize stage writes them. */
    static final List<String> FIELDS = List.of("user_id", "page_id", "ad_id", "ad_type", "event_type", "event_time",
            "ip");
    private static final int AD = FIELDS.indexOf("ad_id");
    private static final int EVENT_TYPE = FIELDS.indexOf("event_type");
    private static final int EVENT_TIME = FIELDS.indexOf("event_time");
    private static final JsonFactory JSON = new JsonFactory();
    private static final String TAB = "\t";

    public static void build(StreamExecutionEnvironment env, String configJson) throws IOException {
        RecordPipeline.build(env, configJson, new YsbRecordsJob());
    }

    @Override
    public DeserializationSchema<TailRecord> records() {
        return new Events();
    }

    @Override
    public List<RecordWork> stages(RecordPipeline.Config config) throws IOException {
        HashMap<String, String> campaignByAd = CampaignJoin.byAd(YsbJob.campaigns(config.campaignsFile()));
        return List.of(YsbRecordsJob::deserialize, YsbRecordsJob::viewsOnly, YsbRecordsJob::project,
                record -> join(record, campaignByAd));
    }

    /** YSB's deserialize bolt: the event's JSON parsed into its fields. */
    static String deserialize(String json) {
        String[] values = new String[FIELDS.size()];
        try (JsonParser parser = JSON.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("a YSB event must be a JSON object, got: " + json);
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                int field = FIELDS.indexOf(parser.currentName());
                parser.nextToken();
                if (field >= 0) {
                    values[field] = parser.getText();
                } else {
                    parser.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("a YSB event must be a JSON object, got: " + json, e);
        }
        return String.join(TAB, values);
    }

    /** YSB's filter: views only (null drops the record). */
    static String viewsOnly(String fields) {
        return "view".equals(fields.split(TAB, -1)[EVENT_TYPE]) ? fields : null;
    }

    /** YSB's projection: ad id and event time. */
    static String project(String fields) {
        String[] values = fields.split(TAB, -1);
        return values[AD] + TAB + values[EVENT_TIME];
    }

    /** YSB's join (its Redis lookup): campaign id and event time; an ad outside the table joins "unknown". */
    static String join(String projected, HashMap<String, String> campaignByAd) {
        int tab = projected.indexOf(TAB);
        return campaignByAd.getOrDefault(projected.substring(0, tab), CampaignJoin.UNKNOWN) + projected.substring(tab);
    }

    /** YSB events (one JSON per line) as records: created at their event time, numbered in the order read. */
    static final class Events extends TailRecordDeserializer {

        private static final String EVENT_TIME_KEY = "\"event_time\":";
        private long next;

        @Override
        protected TailRecord parseLine(String line) throws IOException {
            int from = line.indexOf(EVENT_TIME_KEY) + EVENT_TIME_KEY.length();
            int to = from;
            while (to < line.length() && Character.isDigit(line.charAt(to))) {
                to++;
            }
            if (from < EVENT_TIME_KEY.length() || to == from) {
                throw new IOException("a YSB event must have a numeric event_time, got: " + line);
            }
            return new TailRecord(next++, Long.parseLong(line, from, to, 10), line);
        }
    }
}
