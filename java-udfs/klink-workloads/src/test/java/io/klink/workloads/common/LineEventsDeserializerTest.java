package io.klink.workloads.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.klink.metrics.Envelope;
import io.klink.workloads.ysb.YsbEventDeserializer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/** A record packed by the generator yields its events one by one, in order; a single event is one line. */
class LineEventsDeserializerTest {

    private static List<Envelope> read(LineEventsDeserializer d, String value) throws IOException {
        List<Envelope> out = new ArrayList<>();
        d.deserialize(value.getBytes(StandardCharsets.US_ASCII), new Collector<>() {
            @Override
            public void collect(Envelope e) {
                out.add(e);
            }

            @Override
            public void close() {
            }
        });
        return out;
    }

    @Test
    void aPackedCsvRecordYieldsEachLineInOrder() throws IOException {
        List<Envelope> events = read(new CsvLineDeserializer("point"), "1.5,2.5,1000\n3,4,999\n5,6,1001");
        assertEquals(List.of(1000L, 999L, 1001L), events.stream().map(e -> e.timestamp).toList());
        assertEquals("3,4,999", events.get(1).key);
    }

    @Test
    void aPackedYsbRecordYieldsEachEventAndASingleEventRecordOneEvent() throws IOException {
        String view = "{\"ad_id\":\"a1\",\"event_type\":\"view\",\"event_time\":7}";
        String click = "{\"ad_id\":\"a2\",\"event_type\":\"click\",\"event_time\":8}";
        List<Envelope> packed = read(new YsbEventDeserializer(), view + "\n" + click);
        assertEquals(List.of("a1", "a2"), packed.stream().map(e -> e.key).toList());
        assertEquals(List.of(YsbEventDeserializer.VIEW, YsbEventDeserializer.CLICK),
                packed.stream().map(e -> e.value).toList());
        assertEquals(List.of(7L), read(new YsbEventDeserializer(), view).stream().map(e -> e.timestamp).toList());
    }

    @Test
    void aBadLineInAPackedRecordIsAnError() {
        assertThrows(IOException.class, () -> read(new CsvLineDeserializer("point"), "1,2,3\n1,2,x"));
    }

    @Test
    void progressRecordsBecomeProgressEnvelopesInEveryWorkloadsFormat() throws IOException {
        List<Envelope> csv = read(new CsvLineDeserializer("point"), "1.5,2.5,1000\n#progress,1050\n#progress,1100");
        assertEquals(List.of(Envelope.DATA, Envelope.PROGRESS, Envelope.PROGRESS),
                csv.stream().map(e -> e.kind).toList());
        assertEquals(List.of(1000L, 1050L, 1100L), csv.stream().map(e -> e.timestamp).toList());
        List<Envelope> ysb = read(new YsbEventDeserializer(), "#progress,2000");
        assertEquals(Envelope.PROGRESS, ysb.get(0).kind);
        assertEquals(2000L, ysb.get(0).timestamp);
        assertThrows(IOException.class, () -> read(new YsbEventDeserializer(), "#progress,soon"));
    }
}
