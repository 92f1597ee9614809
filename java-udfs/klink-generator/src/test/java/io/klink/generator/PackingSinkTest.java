package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a topic gets in one burst becomes one newline-separated record, cut at the size limit. */
class PackingSinkTest {

    /** Records as "topic:value", plus "|" for every end of burst passed on. */
    private static final class Recording implements EventSink {
        final List<String> log = new ArrayList<>();

        @Override
        public void send(int topic, byte[] value) {
            log.add(topic + ":" + new String(value, StandardCharsets.US_ASCII));
        }

        @Override
        public void endOfBurst() {
            log.add("|");
        }
    }

    private static void send(EventSink sink, int topic, String value) {
        sink.send(topic, value.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void eachTopicsEventsOfOneBurstBecomeOneRecordInOrder() {
        Recording records = new Recording();
        PackingSink sink = new PackingSink(records, 2, 1024);
        send(sink, 0, "a1");
        send(sink, 1, "b1");
        send(sink, 0, "a2");
        send(sink, 0, "a3");
        assertEquals(List.of(), records.log, "nothing leaves before the burst ends");
        sink.endOfBurst();
        send(sink, 1, "b2");
        sink.endOfBurst();
        assertEquals(List.of("0:a1\na2\na3", "1:b1", "|", "1:b2", "|"), records.log);
    }

    @Test
    void aRecordIsCutBeforeItWouldExceedTheLimit() {
        Recording records = new Recording();
        PackingSink sink = new PackingSink(records, 1, 8);
        send(sink, 0, "aaa");
        send(sink, 0, "bbb");   // "aaa\nbbb" = 7 bytes
        send(sink, 0, "ccc");   // would make 11
        send(sink, 0, "dddddddddd");  // longer than the limit alone: a record of its own
        sink.endOfBurst();
        assertEquals(List.of("0:aaa\nbbb", "0:ccc", "0:dddddddddd", "|"), records.log);
    }

    @Test
    void zeroBytesMeansOneRecordPerEvent() {
        Recording records = new Recording();
        PackingSink sink = new PackingSink(records, 1, 0);
        send(sink, 0, "a1");
        send(sink, 0, "a2");
        sink.endOfBurst();
        assertEquals(List.of("0:a1", "0:a2", "|"), records.log);
    }

    @Test
    void theGeneratorEndsABurstWheneverItHasSentWhatWasDue() {
        ScriptedClock clock = new ScriptedClock();
        CapturingSink events = new CapturingSink(clock);
        List<Long> burstsAt = new ArrayList<>();
        EventSink sink = new EventSink() {
            @Override
            public void send(int topic, byte[] value) {
                events.send(topic, value);
            }

            @Override
            public void endOfBurst() {
                burstsAt.add(clock.now);
            }
        };
        Generator generator = new Generator(new Generator.Config(List.of("q0"), 1000, 5, DelayModels.parse("const:0"),
                false), 42, YsbCatalog.create(42, 100, 10), clock, sink, new LagStats(1, null));
        generator.run(0, ScriptedClock.WALL_AT_ZERO_MS);
        assertEquals(5, events.sent.size());
        // one event due per ms on a clock that jumps to each due time: every event ends its own burst,
        // at the moment it was sent
        assertEquals(events.sent.stream().map(CapturingSink.Sent::atNanos).toList(), burstsAt);
    }
}
