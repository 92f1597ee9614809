package io.klink.sampler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Alg. 4 on scripted streams: 1 event/ms, sub-streams of 100 ms, windows of 500 ms. */
class AionSamplerTest {

    private static final long F = 100;

    private static SamplerConfig config(String kind) {
        return new SamplerConfig(kind, F, 500, 0, 0.05, 0.95, 50, 7);
    }

    private static ScriptedStream run(String kind, int keys, long delayMs, long untilMs) {
        ScriptedStream stream = new ScriptedStream();
        stream.run(Samplers.create(config(kind)), 3000, 1, keys, i -> delayMs, untilMs);
        return stream;
    }

    @Test
    void warmsUpLikeKSlackTheFirstWindow() {
        ScriptedStream stream = run("aion", 2, 10, 700);
        // No history yet: sub-stream [0, 100) is processed only once its slack (max delay 10 ms) is over.
        assertEquals(new ScriptedStream.Mark(99, 110), stream.watermarks.get(0));
        for (SubstreamReport r : stream.substreams.subList(0, 5)) {
            assertEquals(1.0, r.rate());
            assertEquals(100, r.sampled());
            assertEquals(r.end() + 10, r.closedAt());
        }
    }

    @Test
    void plansTheRateFromEq44AndEq47AfterOneWindow() {
        ScriptedStream stream = run("aion", 2, 10, 1000);
        SubstreamReport planned = stream.substreams.get(5);
        // E[N_i] = 100, σ = 0 → N^w = 500; cv² = 2 keys − 1 = 1 → n^w = 377.25, n_i = 75.45;
        // Eq. 4.7: (100 − 10)/1 = 90 by the deadline → θ = 75.45 / 90 = 0.8383.
        assertEquals(75.45, planned.target(), 0.01);
        assertEquals(0.8383, planned.rate(), 1e-4);
    }

    @Test
    void plansWithTheWindowsValueModel() {
        SamplerConfig centroids = new SamplerConfig("aion", F, 500, 0, 0.05, 0.95, 50, 7, ValueModel.centroids(3));
        ScriptedStream stream = new ScriptedStream();
        stream.run(Samplers.create(centroids), 3000, 1, 2, i -> 10, 1000);
        SubstreamReport planned = stream.substreams.get(5);
        // cv² = k = 3: n^w = 3.841459·3 / (0.0025 + 11.524377/500) = 451.08, n_i = 90.22 → θ = 90.22/90 → 1
        assertEquals(90.22, planned.target(), 0.01);
        assertEquals(1.0, planned.rate(), 1e-12);
    }

    @Test
    void processesASubstreamAtItsDeadlineOnceItsSampleIsBigEnoughNotBefore() {
        ScriptedStream stream = run("aion", 2, 10, 3100);
        List<SubstreamReport> planned = stream.substreams.subList(5, stream.substreams.size() - 1);
        int circumvented = 0;
        for (SubstreamReport r : planned) {
            assertTrue(r.closedAt() >= r.end(), "never before the deadline: " + r);
            boolean complete = r.sampled() >= r.target();
            assertTrue(complete || r.closedAt() == r.end() + 10, "incomplete samples wait for the slack: " + r);
            if (complete && r.closedAt() < r.end() + 10) {
                circumvented++;
            }
        }
        assertTrue(circumvented > planned.size() / 3, "stragglers circumvented in " + circumvented + " of "
                + planned.size());
        for (ScriptedStream.Mark m : stream.watermarks) {  // each watermark right after its sub-stream's sample
            assertEquals(0, (m.watermark() + 1) % F);
        }
    }

    /** Every event its own key: Eq. 4.4 asks for (nearly) all of a sub-stream, θ = 1, so the rule is exact. */
    private static ScriptedStream everyEventNeeded(java.util.function.LongUnaryOperator delay) {
        ScriptedStream stream = new ScriptedStream();
        stream.run(Samplers.create(config("aion")), 2000, 1, 2000, delay, 2100);
        return stream;
    }

    private static SubstreamReport substreamEnding(ScriptedStream stream, long end) {
        return stream.substreams.stream().filter(r -> r.end() == end).findFirst().orElseThrow();
    }

    @Test
    void watermarkComesWithTheEventThatCompletesTheSampleAfterTheDeadline() {
        // Event 0 is 100 ms late (the slack k = 100 ms); event 1250 arrives 70 ms late, at 1320; the rest 10 ms.
        ScriptedStream stream = everyEventNeeded(i -> i == 0 ? 100 : i == 1250 ? 70 : 10);
        SubstreamReport r = substreamEnding(stream, 1300);
        assertEquals(99.68, r.target(), 0.01);  // n^w = 3.8415·99 / (0.0025 + 3.8415·99/500) = 498.4, / 5
        assertEquals(1.0, r.rate());
        assertEquals(100, r.sampled());
        assertEquals(1320, r.closedAt());  // not at 1319 with 99 events, not at the slack's end (1400)
        assertTrue(stream.watermarks.contains(new ScriptedStream.Mark(1299, 1320)));
    }

    @Test
    void aCompleteSampleStillWaitsForTheDeadline() {
        // No delay but event 0's (the slack k = 100 ms): every event of a sub-stream is in by end - 1.
        ScriptedStream stream = new ScriptedStream();
        stream.run(Samplers.create(config("aion")), 3000, 1, 2, i -> i == 0 ? 100 : 0, 3100);
        List<SubstreamReport> planned = stream.substreams.stream().filter(r -> r.target() > 0).toList();
        long completeEarly = planned.stream().filter(r -> r.sampled() >= r.target()).count();
        assertTrue(completeEarly >= 3, "samples complete before their deadline: " + completeEarly);
        for (SubstreamReport r : planned) {
            // complete: at the deadline, not before; short of its target: no straggler will come, so the slack
            assertEquals(r.sampled() >= r.target() ? r.end() : r.end() + 100, r.closedAt(), r.toString());
        }
    }

    @Test
    void dropsAndCountsTheStragglersOfProcessedSubstreams() {
        ScriptedStream stream = run("aion", 2, 10, 3100);
        long emitted = stream.events.size();
        long sampledTotal = stream.substreams.stream().mapToLong(SubstreamReport::sampled).sum();
        assertEquals(sampledTotal, emitted);
        SubstreamReport last = stream.substreams.get(stream.substreams.size() - 1);
        long observedTotal = 3000;
        long unsampled = stream.substreams.stream().mapToLong(r -> r.observed() - r.sampled()).sum();
        assertTrue(last.droppedLate() > 0);
        // Every event is sampled, not sampled, or a straggler of a processed sub-stream.
        assertTrue(sampledTotal + last.droppedLate() <= observedTotal);
        assertTrue(unsampled > 0);
    }

    @Test
    void weightsScaleEachSampleUpToTheSubstreamSize() {  // Eq. 4.5
        ScriptedStream stream = run("aion", 2, 10, 3100);
        for (SubstreamReport r : stream.substreams.subList(5, 25)) {
            assertEquals(Math.max(100, r.observed()), stream.weightOfSubstream(r.end(), F), 1e-6);
        }
    }

    @Test
    void aionMinusSamplesFromAllEventsAndWaitsForTheSlack() {
        ScriptedStream stream = run("aion-minus", 2, 10, 3100);
        for (SubstreamReport r : stream.substreams.subList(5, 25)) {
            assertEquals(75.45 / 100, r.rate(), 1e-3);  // n_i / E[N_i]
            assertEquals(r.end() + 10, r.closedAt());
            assertEquals(0, r.droppedLate());
        }
    }
}
