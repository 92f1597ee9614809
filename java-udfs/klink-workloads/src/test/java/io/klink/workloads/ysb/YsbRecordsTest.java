package io.klink.workloads.ysb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.klink.workloads.tail.TailRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

class YsbRecordsTest {

    private static String event(String type, long time) {
        return "{\"user_id\":\"u\",\"page_id\":\"p\",\"ad_id\":\"ad-7\",\"ad_type\":\"banner\",\"event_type\":\""
                + type + "\",\"event_time\":" + time + ",\"ip\":\"1.2.3.4\"}";
    }

    @Test
    void theFourStagesParseFilterProjectAndJoinAsYsbDoes() {
        HashMap<String, String> campaignByAd = CampaignJoin.byAd(Map.of("c-1", List.of("ad-7")));
        String fields = YsbRecordsJob.deserialize(event("view", 1700000000123L));
        assertEquals("u\tp\tad-7\tbanner\tview\t1700000000123\t1.2.3.4", fields);
        assertEquals(fields, YsbRecordsJob.viewsOnly(fields));
        assertEquals("ad-7\t1700000000123", YsbRecordsJob.project(fields));
        assertEquals("c-1\t1700000000123", YsbRecordsJob.join(YsbRecordsJob.project(fields), campaignByAd));
        assertEquals("unknown\t5", YsbRecordsJob.join("ad-0\t5", campaignByAd));
        assertNull(YsbRecordsJob.viewsOnly(YsbRecordsJob.deserialize(event("click", 1))));
        assertNull(YsbRecordsJob.viewsOnly(YsbRecordsJob.deserialize(event("purchase", 1))));
        assertThrows(UncheckedIOException.class, () -> YsbRecordsJob.deserialize("[1]"));
    }

    @Test
    void eventsAreNumberedInTheOrderReadAndCreatedAtTheirEventTime() throws IOException {
        List<TailRecord> out = new ArrayList<>();
        YsbRecordsJob.Events events = new YsbRecordsJob.Events();
        events.deserialize((event("view", 1000) + "\n#progress,2000\n" + event("click", 1001))
                .getBytes(StandardCharsets.US_ASCII), new Collector<>() {
                    @Override
                    public void collect(TailRecord record) {
                        out.add(record);
                    }

                    @Override
                    public void close() {}
                });
        assertEquals(2, out.size());
        assertEquals(0, out.get(0).id);
        assertEquals(1, out.get(1).id);
        assertEquals(1001, out.get(1).createdMs);
        assertEquals(event("click", 1001), out.get(1).payload);
        assertThrows(IOException.class, () -> events.deserialize("{\"ad_id\":\"a\"}".getBytes(StandardCharsets.US_ASCII)));
    }
}
