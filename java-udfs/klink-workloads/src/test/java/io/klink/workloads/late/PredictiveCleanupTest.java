package io.klink.workloads.late;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** §3.4's predictive cleanup: the bound of new windows from the late arrivals of complete windows (T = 1 s). */
class PredictiveCleanupTest {

    @TempDir
    Path tmp;

    @Test
    void theBoundIsTheUpperConfidenceBoundOfTheCoverageQuantileOfCompleteWindows() {
        PredictiveCleanup c = new PredictiveCleanup(0.9, 1000);
        for (int age = 0; age < 200; age++) {
            c.observe(1000, age);
        }
        c.advance(1998);
        assertEquals(1000, c.bound(), "window 1000 may still get late events: not observed yet");
        c.advance(1999);
        // rank ⌈200·0.9 + 1.645·√(200·0.9·0.1)⌉ = 187: the age 186, in the cell [186, 187)
        assertEquals(187, c.bound());
        for (int i = 0; i < 100; i++) {
            c.observe(2000, 1000 + i);  // past the conservative bound: counted at once
        }
        assertEquals(1000, c.bound(), "rank 279 of 300 falls among the arrivals beyond it");
        PredictiveCleanup off = new PredictiveCleanup(0, 1000);
        off.observe(1000, 5);
        off.advance(5000);
        assertEquals(0, off.observed());
        assertEquals(1000, off.bound());
    }

    @Test
    void aWindowCreatedAfterTheHistoryIsPurgedAtItsBoundAndLaterEventsAreCountedAsDroppedAfterPurge()
            throws Exception {
        try (AionWindows w = new AionWindows(new AionWindows.Settings(1000, 0, 1000, 100, 0.5, "watermark", 1, 0.9),
                new PBuckets(tmp.resolve("q00-0")), new IoScheduler("test-io", true))) {
            w.add(new LateEvent("k", 1, 10));
            w.advance(999);
            w.advance(1049);
            for (int i = 0; i < 200; i++) {
                assertTrue(w.add(new LateEvent("k", 1, 100 + i)));  // window 1000, all at age 50
            }
            w.advance(1999);  // window 1000 cleaned up at the fixed bound, its late arrivals complete
            w.add(new LateEvent("k", 1, 2500));  // window 3000, created now: bound 51 ms (cell [50, 51))
            w.advance(3029);
            assertTrue(w.add(new LateEvent("k", 1, 2600)), "age 30: accepted");
            w.advance(3049);
            assertEquals(1, w.openWindows());
            w.advance(3050);
            assertEquals(0, w.openWindows(), "purged at age 51");
            assertFalse(w.add(new LateEvent("k", 1, 2700)));
            assertEquals(1, w.counters().droppedAfterPurge());
            List<LateExecutions.Report> reports = w.drainReports();
            assertEquals(List.of(1000L, 51L), reports.stream().map(LateExecutions.Report::boundMs).toList());
            w.advance(3999);  // the fixed bound passed window 3000: its drops are no longer "after purge"
            assertFalse(w.add(new LateEvent("k", 1, 2800)));
            assertEquals(1, w.counters().droppedAfterPurge());
            assertEquals(2, w.counters().lateDropped());
        }
    }

    @Test
    void refusesACoverageOutOfRange() {
        assertThrows(IllegalArgumentException.class,
                () -> new AionWindows.Settings(1000, 0, 1000, 10, 0.1, "watermark", 1, 1.0));
        assertThrows(IllegalArgumentException.class,
                () -> new AionWindows.Settings(1000, 0, 1000, 10, 0.1, "watermark", 1, -0.5));
        assertThrows(IllegalArgumentException.class,
                () -> new AionWindows.Settings(1000, 0, 0, 10, 0.1, "watermark", 1, 0.99));
    }
}
