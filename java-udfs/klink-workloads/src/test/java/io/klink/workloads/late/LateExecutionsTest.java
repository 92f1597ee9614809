package io.klink.workloads.late;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** §3.4's staleness trigger in AION's windows (1 s windows, T = 1 s): when they re-execute, what they report. */
class LateExecutionsTest {

    @TempDir
    Path tmp;

    private AionWindows windows(String trigger, double bound) {
        return windows(new AionWindows.Settings(1000, 0, 1000, 100, 0.5, trigger, bound));
    }

    private AionWindows windows(AionWindows.Settings settings) {
        return new AionWindows(settings, new PBuckets(tmp.resolve("q00-0")), new IoScheduler("test-io", true));
    }

    private static boolean late(AionWindows w, long ts) {
        return w.add(new LateEvent("k", 1, ts));
    }

    /** Window 1000 gets its late events at age 50 and is cleaned up (window 2000 fired before, on the uniform
     *  plan); window 3000 has an event and fires next on what was learned. */
    private static void learnEveryLateArrivalAtAge50(AionWindows w) {
        late(w, 10);
        w.advance(999);
        w.advance(1049);
        for (int i = 0; i < LateExecutions.MIN_LEARNED; i++) {
            late(w, 100 + i);
        }
        late(w, 2500);
        w.advance(1999);
    }

    @Test
    void uniformUntilLearnedTheTriggerExecutesAtThePlannedAgesAndAtCleanupAndReportsTheStaleness() throws Exception {
        try (AionWindows w = windows("staleness", 0.25)) {  // uniform: executions at ages 500 and 1000
            late(w, 10);
            assertEquals(1, w.advance(999).size(), "the on-time firing, age 0");
            w.advance(1099);
            late(w, 20);
            assertTrue(w.reExecute().isEmpty(), "age 100: before the first planned execution");
            assertEquals(2, w.advance(1499).get(0).execution(), "age 500");
            late(w, 30);
            assertTrue(w.advance(1998).isEmpty());
            assertEquals(3, w.advance(1999).get(0).execution(), "cleanup: the last planned execution");
            List<LateExecutions.Report> reports = w.drainReports();
            // intervals [0, 500] and [500, 1000] with one late event each: 500 · 1 / (1000 · 2)
            assertEquals(List.of(new LateExecutions.Report(1000, 2, 2, 2, 0.25, 1000)), reports);
        }
    }

    @Test
    void theWatermarkTriggerReExecutesOnTheNextTickAndItsStalenessIsMeasuredTheSameWay() throws Exception {
        try (AionWindows w = windows("watermark", 1)) {
            late(w, 10);
            w.advance(999);
            w.advance(1099);
            late(w, 20);
            assertEquals(2, w.reExecute().get(0).execution(), "age 100");
            late(w, 30);
            assertEquals(3, w.advance(1998).get(0).execution(), "age 999");
            w.advance(1999);
            // [0, 100] one event, [100, 999] one event: 899 / (1000 · 2)
            assertEquals(List.of(new LateExecutions.Report(1000, 2, 0, 2, 0.4495, 1000)), w.drainReports());
        }
    }

    @Test
    void theDistributionLearnedFromCleanedUpWindowsMovesTheFirstExecutionEarly() throws Exception {
        try (AionWindows w = windows("staleness", 0.25)) {
            learnEveryLateArrivalAtAge50(w);
            // window 3000 fires: every late arrival seen was at age 50-60, so its two executions are balanced at
            // b·F(b) = (1 − b)(1 − F(b)) with F linear from 0.05 to 0.06: b = 0.0594, age 59.4 (uniform: 500)
            w.advance(2999);
            w.advance(3049);
            late(w, 2600);
            assertTrue(w.advance(3054).isEmpty(), "age 55");
            List<AionWindows.Result> early = w.advance(3059);
            assertEquals(1, early.size(), "age 60: executed");
            assertEquals(3000, early.get(0).windowEnd());
        }
    }

    @Test
    void deltaTExecutesEveryTOverKSkippingAPlannedAgeWithoutNewEvents() throws Exception {
        try (AionWindows w = windows(new AionWindows.Settings(1000, 0, 1000, 100, 0.5, "delta-t", 1).executing(4))) {
            late(w, 10);
            w.advance(999);
            w.advance(1099);
            late(w, 20);
            assertTrue(w.advance(1248).isEmpty(), "age 249: before T/4");
            assertEquals(2, w.advance(1249).get(0).execution(), "age 250");
            assertTrue(w.advance(1499).isEmpty(), "age 500: planned, but nothing new");
            late(w, 30);
            assertTrue(w.advance(1748).isEmpty());
            assertEquals(3, w.advance(1749).get(0).execution(), "age 750");
            w.advance(1999);
            // [0, 250] one event, [250, 750] one event: 500 / (1000 · 2)
            assertEquals(List.of(new LateExecutions.Report(1000, 2, 4, 2, 0.25, 1000)), w.drainReports());
        }
    }

    @Test
    void deltaEvPlacesItsExecutionsAtTheQuantilesOfTheLearnedArrivals() throws Exception {
        try (AionWindows w = windows(new AionWindows.Settings(1000, 0, 1000, 100, 0.5, "delta-ev", 1).executing(2))) {
            learnEveryLateArrivalAtAge50(w);
            w.advance(2999);  // window 3000 fires: half the arrivals expected by age 55 (F linear on [50, 60])
            w.advance(3049);
            late(w, 2600);
            assertTrue(w.advance(3053).isEmpty(), "age 54");
            assertEquals(1, w.advance(3054).size(), "age 55: the median (uniform: 500)");
        }
    }

    @Test
    void refusesAnUnknownTriggerOrABoundOutOfRange() {
        assertThrows(IllegalArgumentException.class,
                () -> new AionWindows.Settings(1000, 0, 1000, 10, 0.1, "delta-t", 1).executing(0));
        assertThrows(IllegalArgumentException.class,
                () -> new AionWindows.Settings(1000, 0, 0, 10, 0.1, "delta-ev", 1));
        assertThrows(IllegalArgumentException.class,
                () -> new AionWindows.Settings(1000, 0, 1000, 10, 0.1, "sometimes", 0.1));
        assertThrows(IllegalArgumentException.class,
                () -> new AionWindows.Settings(1000, 0, 1000, 10, 0.1, "staleness", 0));
        assertThrows(IllegalArgumentException.class,
                () -> new AionWindows.Settings(1000, 0, 0, 10, 0.1, "staleness", 0.1));
    }
}
