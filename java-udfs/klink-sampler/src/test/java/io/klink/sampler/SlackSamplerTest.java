package io.klink.sampler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SlackSamplerTest {

    private static ScriptedStream run(String kind, java.util.function.LongUnaryOperator delay) {
        ScriptedStream stream = new ScriptedStream();
        stream.run(Samplers.create(new SamplerConfig(kind, 100, 500, 0, 0.05, 0.95, 50, 7)), 3000, 1, 2, delay, 3100);
        return stream;
    }

    @Test
    void kslackTrailsTheLargestEventTimeByTheLargestDelayAndKeepsEveryEvent() {
        ScriptedStream stream = run("kslack", i -> i == 500 ? 40 : 10);
        assertEquals(3000, stream.events.size());
        assertTrue(stream.events.stream().allMatch(e -> e.event().weight == 1.0));
        for (ScriptedStream.Mark m : stream.watermarks) {
            long maxEventTime = m.at() - 10;  // the newest event arrived 10 ms after it was generated
            long slack = m.at() >= 540 ? 40 : 10;
            assertEquals(maxEventTime - slack, m.watermark(), "at " + m.at());
        }
    }

    @Test
    void aqKslackSamplesAtTheRateForHalfTheErrorAndWeighsByItsInverse() {
        ScriptedStream stream = run("aq-kslack", i -> 10 + i % 7);
        SubstreamReport planned = stream.substreams.get(10);
        // N^w = 500 (σ = 0), cv² = 1, r = 0.025: n^w = 3.841459 / (0.000625 + 0.00768292) = 462.4 → θ = 0.9248
        assertEquals(0.9248, planned.rate(), 1e-3);
        stream.events.stream().filter(e -> e.event().timestamp >= 1000 && e.event().timestamp < 1100)
                .forEach(e -> assertEquals(1 / planned.rate(), e.event().weight, 1e-9));
        // K = the 97.5 % quantile of the delays 10..16 ms = 16: the watermark trails the newest event time by
        // 16 ms, and that event arrived 10..16 ms after its generation
        stream.watermarks.stream().filter(m -> m.at() > 1500).forEach(m -> {
            long newestArrivedAfter = m.at() - (m.watermark() + 16);
            assertTrue(newestArrivedAfter >= 10 && newestArrivedAfter <= 16, m.toString());
        });
    }
}
