package io.klink.workloads.ysb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.klink.metrics.Envelope;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class YsbOperatorsTest {

    private static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void deserializerKeepsAdIdEventTypeAndEventTime() throws IOException {
        Envelope e = new YsbEventDeserializer().deserialize(json(
                "{\"user_id\":\"u\",\"page_id\":\"p\",\"ad_id\":\"ad-7\",\"ad_type\":\"banner\","
                        + "\"event_type\":\"click\",\"event_time\":1700000000123,\"ip\":\"1.2.3.4\"}"));
        assertEquals(Envelope.DATA, e.kind);
        assertEquals("ad-7", e.key);
        assertEquals(YsbEventDeserializer.CLICK, e.value);
        assertEquals(1700000000123L, e.timestamp);
    }

    @Test
    void deserializerRejectsEventsWithoutTheFieldsItNeeds() {
        assertThrows(IOException.class, () -> new YsbEventDeserializer().deserialize(json("{\"ad_id\":\"a\"}")));
        assertThrows(IOException.class, () -> new YsbEventDeserializer().deserialize(json("[1]")));
    }

    @Test
    void filterKeepsViewsAndEveryInstrumentationEnvelope() {
        ViewFilter filter = new ViewFilter();
        assertTrue(filter.filter(Envelope.data("a", 1, YsbEventDeserializer.VIEW)));
        assertFalse(filter.filter(Envelope.data("a", 1, YsbEventDeserializer.PURCHASE)));
        assertTrue(filter.filter(Envelope.marker(5)));
        assertTrue(filter.filter(Envelope.probe(5, 6)));
    }

    @Test
    void joinMapsAdsToTheirCampaign() {
        CampaignJoin join = new CampaignJoin(Map.of("c1", List.of("a1", "a2"), "c2", List.of("a3")));
        assertEquals(3, join.ads());
        assertEquals("c1", join.map(Envelope.data("a2", 1, 0)).key);
        assertEquals("c2", join.map(Envelope.data("a3", 1, 0)).key);
        assertEquals(CampaignJoin.UNKNOWN, join.map(Envelope.data("zz", 1, 0)).key);
        assertEquals(null, join.map(Envelope.marker(1)).key);
    }
}
