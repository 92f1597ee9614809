package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class WarmUpTest {

    @Test
    void rehearsesTheRunAndStopsByTheMaximum() {
        long[] seen = new long[1];
        EventSink sink = (topic, value) -> seen[0]++;
        Generator.Config run = new Generator.Config(List.of("a", "b"), 2000, 60_000, new ConstantDelay(50), false);
        long t = System.nanoTime();
        int[] switches = new int[1];
        WarmUp.Outcome o = WarmUp.run(run, YsbCatalog.create(1, 10, 10), 1200, sink, set -> switches[0]++);
        long tookMs = (System.nanoTime() - t) / 1_000_000L;
        assertTrue(tookMs >= 900 && tookMs < 5000, "took " + tookMs + " ms");
        assertTrue(o.events() > 1000 && o.events() == seen[0], "events " + o.events());
        assertTrue(switches[0] >= 1, "routed to the first set of warm-up topics");
    }

    @Test
    void aStartLearnedDuringTheRehearsalCutsItShort() {
        EventSink sink = (topic, value) -> { };
        Generator.Config run = new Generator.Config(List.of("a"), 2000, 60_000, new ConstantDelay(50), false);
        long endBy = System.currentTimeMillis() + 300;
        long t = System.nanoTime();
        WarmUp.run(run, new YsbEventCodec(YsbCatalog.create(1, 10, 10)), 20_000, sink, set -> { }, () -> endBy);
        long tookMs = (System.nanoTime() - t) / 1_000_000L;
        assertTrue(tookMs >= 250 && tookMs < 3000, "took " + tookMs + " ms, not ~300 ms");
    }
}
