package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The whole loop on a scripted clock: schedule, determinism, and lag accounting, without sleeping. */
class GeneratorTest {

    private static final long START = ScriptedClock.WALL_AT_ZERO_MS;
    private static final long MS = 1_000_000L;

    private static final class Run {
        final ScriptedClock clock = new ScriptedClock();
        final CapturingSink sink = new CapturingSink(clock);
        final StringWriter csv = new StringWriter();
        final Generator generator;
        Generator.Result result;

        Run(long seed, List<String> topics, long rate, long durationMs, String delay) {
            this(seed, topics, rate, durationMs, delay, "const");
        }

        Run(long seed, List<String> topics, long rate, long durationMs, String delay, String gaps) {
            LagStats stats = new LagStats(topics.size(), csv);
            generator = new Generator(new Generator.Config(topics, rate, durationMs, DelayModels.parse(delay),
                    Gaps.parse(gaps, new Schedule(rate)), false),
                    seed, YsbCatalog.create(seed, 100, 10), clock, sink, stats);
        }

        Run go() {
            result = generator.run(0, START);
            return this;
        }

        List<String> rows() {
            return csv.toString().lines().toList();
        }
    }

    @Test
    void sameSeedSameEventsDifferentSeedDifferentEvents() {
        List<String> a = new Run(42, List.of("q0", "q1"), 1000, 200, "const:0").go().sink.jsonOfTopic(0);
        List<String> b = new Run(42, List.of("q0", "q1"), 1000, 200, "const:0").go().sink.jsonOfTopic(0);
        List<String> c = new Run(43, List.of("q0", "q1"), 1000, 200, "const:0").go().sink.jsonOfTopic(0);
        assertEquals(200, a.size());
        assertEquals(a, b);
        assertNotEquals(a.subList(0, 10), c.subList(0, 10));
        for (int i = 0; i < 10; i++) {
            assertNotEquals(a.get(i), c.get(i));
        }
    }

    @Test
    void topicStreamIndependentOfTopicCountDelayAndTiming() {
        List<String> one = new Run(42, List.of("q0"), 1000, 100, "const:0").go().sink.jsonOfTopic(0);
        Run three = new Run(42, List.of("q0", "q1", "q2"), 1000, 100, "const:250ms");
        three.sink.afterSend = i -> three.clock.advance(i % 7 == 0 ? 3 * MS : 0); // jittery sends
        three.go();
        assertEquals(one, three.sink.jsonOfTopic(0));
        assertNotEquals(three.sink.jsonOfTopic(0), three.sink.jsonOfTopic(1), "topics differ");
    }

    @Test
    void gammaGapsKeepTheMeanRateButEachTopicIsBurstyOnItsOwn() {
        Run r = new Run(7, List.of("a", "b"), 1000, 20_000, "const:100ms", "gamma:2").go();
        for (int topic = 0; topic < 2; topic++) {
            List<String> events = r.sink.jsonOfTopic(topic);
            assertTrue(Math.abs(events.size() - 20_000) < 600, "about rate x duration events: " + events.size());
            long previous = Long.MIN_VALUE;
            for (String json : events) {
                long eventTime = (Long) TinyJson.parseFlatObject(json).get("event_time");
                assertTrue(eventTime >= previous && eventTime < START + 20_000, "in order, inside the duration");
                previous = eventTime;
            }
        }
        assertNotEquals(r.sink.jsonOfTopic(0).size(), r.sink.jsonOfTopic(1).size(), "topics draw their own gaps");
        for (CapturingSink.Sent s : r.sink.sent) {
            long eventTime = (Long) TinyJson.parseFlatObject(s.json()).get("event_time");
            long early = s.atNanos() - (eventTime - START + 100) * MS; // event times are whole ms, offsets ns
            assertTrue(early >= 0 && early < 2 * MS, "sent at event time + delay, off by " + early + " ns");
        }
        List<String> again = new Run(7, List.of("a", "b"), 1000, 20_000, "const:100ms", "gamma:2").go().sink.jsonOfTopic(1);
        assertEquals(r.sink.jsonOfTopic(1), again, "same seed, same bursts");
    }

    @Test
    void eventTimesFollowTheScheduleAndSendsHappenAtEventTimePlusDelay() {
        Run r = new Run(1, List.of("a", "b"), 250, 1000, "const:300ms").go();
        assertEquals(500, r.sink.sent.size());
        for (int i = 0; i < r.sink.sent.size(); i++) {
            CapturingSink.Sent s = r.sink.sent.get(i);
            long k = i / 2;
            assertEquals(i % 2, s.topic(), "topics interleave in event-time order");
            long eventTime = (Long) TinyJson.parseFlatObject(s.json()).get("event_time");
            assertEquals(START + k * 4, eventTime);
            assertEquals((k * 4 + 300) * MS, s.atNanos(), "sent exactly at event time + delay");
        }
        assertFalse(r.result.interrupted());
        assertEquals(500, r.result.eventsSent());
        assertEquals(500, r.result.eventsScheduled());
        assertArrayEquals(new long[]{250, 250}, r.result.sentPerTopic());
        assertEquals(0, r.result.behindEvents());
        assertFalse(r.result.fellBehind());
        assertEquals(500.0, r.result.achievedRate(), 1e-9);
    }

    @Test
    void randomDelaysDoNotLowerTheAchievedRateOfARunThatKeptItsSchedule() {
        Run r = new Run(1, List.of("a", "b"), 250, 1000, "uniform:0-400ms").go();
        assertEquals(500, r.result.eventsSent());
        assertEquals(0, r.result.behindEvents());
        // the sends spread over up to 1.4 s, yet the schedule (2 x 250 events/s) was kept
        assertEquals(500.0, r.result.achievedRate(), 1e-9);
    }

    @Test
    void onScheduleRunWritesOneRowPerSecond() {
        Run r = new Run(1, List.of("q"), 1000, 3000, "const:0").go();
        assertEquals(List.of(LagStats.HEADER,
                "0,1000,1000,0,0.000",
                "1,1000,1000,0,0.000",
                "2,1000,1000,0,0.000"), r.rows());
        assertEquals(0.0, r.result.behindFraction());
    }

    @Test
    void delayedRowsCountScheduledBySendTime() {
        Run r = new Run(1, List.of("q"), 1000, 3000, "const:300ms").go();
        assertEquals(List.of(LagStats.HEADER,
                "0,700,700,0,0.000",
                "1,1000,1000,0,0.000",
                "2,1000,1000,0,0.000",
                "3,300,300,0,0.000"), r.rows());
    }

    @Test
    void aStallIsCountedAsBehindAndFlagged() {
        Run r = new Run(1, List.of("q"), 1000, 3000, "const:0");
        // the send of event 500 (scheduled at 0.500 s) takes 100 ms
        r.sink.afterSend = i -> r.clock.advance(i == 500 ? 100 * MS : 0);
        r.go();
        // events 501..600 go out at 0.600 s: lag 99..0 ms; 501..589 exceed 10 ms
        assertEquals(List.of(LagStats.HEADER,
                "0,1000,1000,89,99.000",
                "1,1000,1000,0,0.000",
                "2,1000,1000,0,0.000"), r.rows());
        assertEquals(89, r.result.behindEvents());
        assertEquals(3000, r.result.eventsScheduled());
        assertEquals(89 / 3000.0, r.result.behindFraction(), 1e-12);
        assertTrue(r.result.fellBehind());
        assertEquals(99 * MS, r.result.maxLagNanos());
    }

    @Test
    void smallLagsBelowTheThresholdAreNotBehind() {
        Run r = new Run(1, List.of("q"), 1000, 2000, "const:0");
        // the send of event 10 takes 11 ms: event 11 goes out exactly 10 ms late, which is not behind
        r.sink.afterSend = i -> r.clock.advance(i == 10 ? 11 * MS : 0);
        r.go();
        assertEquals(0, r.result.behindEvents());
        assertEquals(10 * MS, r.result.maxLagNanos());
        assertFalse(r.result.fellBehind());
    }

    @Test
    void aLongStallShowsInEveryRowItSpans() {
        Run r = new Run(1, List.of("q"), 100, 5000, "const:0");
        // sending event 50 (t = 0.5 s) blocks for 2.2 s; nothing is sent in second 1
        r.sink.afterSend = i -> r.clock.advance(i == 50 ? 2200 * MS : 0);
        r.go();
        List<String> rows = r.rows();
        // event 51 (due 0.51 s) is still waiting at the end of seconds 0 and 1
        assertEquals("0,51,100,0,490.000", rows.get(1));
        assertEquals("1,0,100,0,1490.000", rows.get(2));
        // at 2.7 s events 51..270 go out (51..268 more than 10 ms late), then 271..299 on time
        assertEquals("2,249,100,218,2190.000", rows.get(3));
        assertEquals("3,100,100,0,0.000", rows.get(4));
        assertEquals(218, r.result.behindEvents());
        assertTrue(r.result.fellBehind());
        assertEquals(500, r.result.eventsSent());
    }

    @Test
    void interruptionCountsOverdueUnsentEventsAndReportsInterrupted() {
        Run r = new Run(1, List.of("q0", "q1"), 1000, 10_000, "const:0");
        r.sink.afterSend = i -> {
            if (i == 999) {         // event 499 of q1, at 0.499 s: 500 ms pass, then SIGTERM arrives
                r.clock.advance(500 * MS);
                r.generator.requestStop();
            }
        };
        r.go();
        assertTrue(r.result.interrupted());
        assertEquals(1000, r.result.eventsSent());
        // at stop (0.9995 s) events k = 0..999 of both topics were due: 2000 scheduled, 1000 unsent
        assertEquals(2000, r.result.eventsScheduled());
        assertArrayEquals(new long[]{1000, 1000}, r.result.scheduledPerTopic());
        // unsent k = 500..988 of both topics were overdue by more than 10 ms at 0.999 s
        assertEquals(2 * 489, r.result.behindEvents());
        // the last (partial) row counts only events that were due before the stop
        assertEquals("0,1000,2000,978,499.000", r.rows().get(1)); // k = 500 waited 0.500 -> 0.999 s
        assertTrue(r.result.fellBehind());
    }

    @Test
    void interruptedRunWithDelayDoesNotCountEventsNotYetDue() {
        Run r = new Run(1, List.of("q"), 1000, 10_000, "const:300ms");
        r.sink.afterSend = i -> {
            if (i == 1699) {        // event 1699 is due at 1.999 s; stop right after sending it
                r.clock.advance(MS / 2);
                r.generator.requestStop();
            }
        };
        r.go();
        assertTrue(r.result.interrupted());
        assertEquals(1700, r.result.eventsSent());
        assertEquals(1700, r.result.eventsScheduled(), "events generated but due after the stop do not count");
        assertEquals(0, r.result.behindEvents());
        assertEquals(List.of(LagStats.HEADER, "0,700,700,0,0.000", "1,1000,1000,0,0.000"), r.rows());
    }

    @Test
    void maxRateSendsBackToBackForTheDuration() {
        ScriptedClock clock = new ScriptedClock();
        CapturingSink sink = new CapturingSink(clock);
        sink.afterSend = i -> clock.advance(1000); // 1 µs per send
        Generator g = new Generator(new Generator.Config(List.of("a", "b"), 1, 100, new ConstantDelay(500), true),
                9, YsbCatalog.create(9, 10, 10), clock, sink, new LagStats(2, null));
        Generator.Result r = g.run(0, START);
        assertFalse(r.interrupted());
        assertTrue(r.eventsSent() >= 100_000 && r.eventsSent() <= 100_000 + 4096, "" + r.eventsSent());
        assertEquals(r.eventsSent(), r.eventsScheduled());
        assertEquals(0, r.behindEvents());
        assertEquals(1e6, r.achievedRate(), 1e6 * 0.001);
        CapturingSink.Sent last = sink.sent.get(sink.sent.size() - 1);
        assertEquals(START + last.atNanos() / MS, TinyJson.parseFlatObject(last.json()).get("event_time"));
    }

    @Test
    void progressRecordsFollowTheLastEventUpToTheLeadAndAreNotCounted() {
        Run r = new Run(42, List.of("q0", "q1"), 1000, 200, "const:100ms");
        r.generator.sendProgressAfterEnd(300);
        r.go();
        assertEquals(400, r.result.eventsSent(), "progress records are not events");
        assertFalse(r.result.interrupted());
        for (int topic = 0; topic < 2; topic++) {
            List<String> values = r.sink.jsonOfTopic(topic);
            List<String> progress = values.stream().filter(v -> v.startsWith(Generator.PROGRESS_PREFIX)).toList();
            assertEquals(values.subList(200, values.size()), progress, "after every event of the topic");
            List<Long> times = progress.stream()
                    .map(v -> Long.parseLong(v.substring(Generator.PROGRESS_PREFIX.length()))).toList();
            assertEquals(List.of(START + 200, START + 250, START + 300, START + 350, START + 400, START + 450,
                    START + 500), times, "every 50 ms of event time from the end to end + lead");
        }
        for (CapturingSink.Sent sent : r.sink.sent) {
            if (sent.json().startsWith(Generator.PROGRESS_PREFIX)) {
                long eventTime = Long.parseLong(sent.json().substring(Generator.PROGRESS_PREFIX.length()));
                assertEquals(eventTime - START + 100, sent.atNanos() / MS, "sent at event time + the sampled delay");
            }
        }
    }
}
