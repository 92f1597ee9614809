package io.klink.workloads.late;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** AION's buckets (§3.1–3.3) on 1 s windows [0, 1000), [1000, 2000) ...: what is in memory, what on disk. */
class AionWindowsTest {

    @TempDir
    Path tmp;

    private AionWindows windows(long latenessMs, int mBucket, double rho) {
        return windows(new AionWindows.Settings(1000, 0, latenessMs, mBucket, rho));
    }

    private AionWindows windows(AionWindows.Settings settings) {
        return new AionWindows(settings, new PBuckets(tmp.resolve("q00-0")), new IoScheduler("test-io", true));
    }

    /** The average function's result: average, sum and count of {@code count} events. */
    private static AionWindows.Result average(long end, String key, double sum, long count, int execution,
                                              long late) {
        return new AionWindows.Result(end, key, List.of(count == 0 ? 0 : sum / count, sum, (double) count), count,
                execution, late);
    }

    private static LateEvent e(String key, double value, long t) {
        return new LateEvent(key, value, t);
    }

    private static Map<String, AionWindows.Result> byKey(List<AionWindows.Result> results) {
        Map<String, AionWindows.Result> m = new HashMap<>();
        results.forEach(r -> m.put(r.windowEnd() + "/" + r.key(), r));
        return m;
    }

    @Test
    void expiryDestagesAllButTheBootstrapFractionAndALateEventReExecutesOverBothBuckets() throws Exception {
        try (AionWindows w = windows(10_000, 100, 0.25)) {
            for (int i = 0; i < 8; i++) {
                w.add(e(i % 2 == 0 ? "a" : "b", i, 100 + i));
            }
            assertEquals(8, w.counters().mBucketEvents());
            Map<String, AionWindows.Result> fired = byKey(w.advance(999));
            assertEquals(average(1000, "a", 0 + 2 + 4 + 6, 4, 1, 0), fired.get("1000/a"));
            assertEquals(average(1000, "b", 1 + 3 + 5 + 7, 4, 1, 0), fired.get("1000/b"));
            assertEquals(2, w.counters().mBucketEvents(), "ceil(0.25 * 8) events stay as the bootstrap set");
            assertEquals(6, w.counters().destaged());
            assertTrue(w.add(e("a", 100, 500)));  // late: watermark 999 passed the end
            assertEquals(1, w.counters().lateAccepted());
            assertEquals(2, w.counters().mBucketEvents(), "a late event goes to the p-bucket");
            Map<String, AionWindows.Result> again = byKey(w.reExecute());
            assertEquals(average(1000, "a", 112, 5, 2, 1), again.get("1000/a"));
            assertEquals(average(1000, "b", 16, 4, 2, 0), again.get("1000/b"));
            assertEquals(6 + 1, w.counters().staged());
            assertTrue(w.reExecute().isEmpty(), "nothing new, no re-execution");
            assertTrue(Files.size(tmp.resolve("q00-0/w1000.pb")) > 0);
        }
    }

    @Test
    void aFullMBucketOverflowsToThePBucketAndTheOnTimeFiringStagesItBack() throws Exception {
        try (AionWindows w = windows(0, 3, 1.0)) {
            for (int i = 0; i < 10; i++) {
                w.add(e("k", 1, 10 * i));
            }
            assertEquals(3, w.counters().mBucketEvents());
            assertEquals(7, w.counters().overflowWrites());
            List<AionWindows.Result> fired = w.advance(999);
            assertEquals(List.of(average(1000, "k", 10, 10, 1, 0)), fired);
            assertEquals(0, w.counters().destaged(), "rho_min = 1 keeps the whole m-bucket");
        }
    }

    @Test
    void eventsAfterCleanupAreDroppedAndTheirPBucketIsDeleted() throws Exception {
        try (AionWindows w = windows(2000, 100, 0.0)) {
            w.add(e("k", 1, 10));
            w.advance(999);
            assertTrue(w.add(e("k", 1, 20)));  // end - 1 + L = 2999 > watermark
            w.advance(2998);
            assertTrue(Files.exists(tmp.resolve("q00-0/w1000.pb")));
            w.advance(2999);  // cleanup
            assertFalse(w.add(e("k", 1, 30)));
            assertEquals(1, w.counters().lateDropped());
            assertEquals(0, w.openWindows());
            w.add(e("k", 1, 5000));
            w.advance(5999);  // the I/O thread has run the deletion before this window's destaging
            for (int i = 0; i < 100 && Files.exists(tmp.resolve("q00-0/w1000.pb")); i++) {
                Thread.sleep(20);
            }
            assertFalse(Files.exists(tmp.resolve("q00-0/w1000.pb")));
        }
        assertFalse(Files.exists(tmp.resolve("q00-0")), "close deletes the operator's p-bucket directory");
    }

    @Test
    void aPrestagedWindowExecutesOverItsReadAheadAndTheLateEventsThatCameAfterIt() throws Exception {
        try (AionWindows w = windows(new AionWindows.Settings(1000, 0, 10_000, 100, 0.0).prestagingAhead(200))) {
            w.add(e("a", 1, 100));
            w.add(e("a", 2, 200));
            w.advance(999);  // fires, destages both
            assertEquals(0, w.counters().prestaged(), "nothing new: nothing to read ahead");
            w.add(e("a", 10, 300));  // late: read ahead at once (the watermark trigger executes on the next tick)
            assertEquals(1, w.counters().prestaged());
            w.add(e("a", 100, 400));  // after the read: kept beside it
            assertEquals(List.of(average(1000, "a", 113, 4, 2, 2)), w.reExecute());
            assertEquals(1, w.counters().prestaged());
            w.add(e("a", 1000, 500));
            assertEquals(List.of(average(1000, "a", 1113, 5, 3, 3)), w.reExecute());
            assertEquals(2, w.counters().prestaged());
        }
    }

    @Test
    void withTheStalenessTriggerAWindowIsReadAheadOnlyWhenItsNextPlannedExecutionIsNear() throws Exception {
        AionWindows.Settings settings = new AionWindows.Settings(1000, 0, 10_000, 100, 0.0, "staleness", 0.05)
                .prestagingAhead(200);
        try (AionWindows w = windows(settings)) {
            w.add(e("a", 1, 100));
            w.advance(999);
            w.add(e("a", 2, 200));  // late at age 0; the uniform prior's first planned age is far beyond 200 ms
            assertEquals(0, w.counters().prestaged());
            long age = 0;
            while (w.counters().prestaged() == 0 && age < 10_000) {
                age += 100;
                assertTrue(w.advance(999 + age).isEmpty() || w.counters().prestaged() > 0);
            }
            assertEquals(1, w.counters().prestaged(), "read ahead before its first planned execution");
            List<AionWindows.Result> results = new java.util.ArrayList<>();
            for (int i = 0; i < 3 && results.isEmpty(); i++) {
                age += 100;
                results = w.advance(999 + age);
            }
            assertEquals(List.of(average(1000, "a", 3, 2, 2, 1)), results);
        }
    }

    private AionWindows windows(DestagePolicies policies, long[] now, double[] free) {
        return new AionWindows(new AionWindows.Settings(1000, 0, 10_000, 100, 0.25).destaging(policies),
                new PBuckets(tmp.resolve("q00-0")), new IoScheduler("test-io", true), () -> now[0], () -> free[0]);
    }

    @Test
    void aWindowIdleForTauIsDestagedButItsBootstrapSetAndItsFiringStayWhole() throws Exception {
        long[] now = {0};
        double[] free = {1.0};
        try (AionWindows w = windows(new DestagePolicies(500, 0, 0, "size"), now, free)) {
            for (int i = 0; i < 8; i++) {
                w.add(e("a", i, 100 + i));  // window [0, 1000)
            }
            now[0] = 400;
            w.tick();
            assertEquals(0, w.counters().idleDestaged(), "not idle for τ yet");
            now[0] = 600;
            w.tick();
            assertEquals(6, w.counters().idleDestaged(), "8 events, ceil(0.25 * 8) = 2 stay");
            assertEquals(2, w.counters().mBucketEvents());
            w.add(e("a", 100, 900));  // still current: back to its m-bucket
            now[0] = 800;
            w.tick();
            assertEquals(6, w.counters().idleDestaged(), "it just got an event");
            assertEquals(List.of(average(1000, "a", 28 + 100, 9, 1, 0)), w.advance(999));
            now[0] = 5000;
            w.tick();
            assertEquals(6, w.counters().idleDestaged(), "a past window keeps its bootstrap set");
        }
    }

    @Test
    void aModeratelyScarceHeapDestagesOneWindowPerTickInTheChosenOrderAVeryScarceOneAll() throws Exception {
        long[] now = {0};
        double[] free = {0.5};
        try (AionWindows w = windows(new DestagePolicies(0, 0.3, 0.1, "size"), now, free)) {
            for (int i = 0; i < 4; i++) {
                w.add(e("a", 1, 100 + i));  // [0, 1000): 4 events
            }
            for (int i = 0; i < 8; i++) {
                w.add(e("b", 1, 1100 + i));  // [1000, 2000): 8 events, the largest
            }
            w.tick();
            assertEquals(0, w.counters().scarceDestaged(), "50 % free is not scarce");
            free[0] = 0.2;
            w.tick();
            assertEquals(6, w.counters().scarceDestaged(), "the largest window first, ceil(0.25 * 8) = 2 stay");
            w.tick();
            assertEquals(6 + 3, w.counters().scarceDestaged(), "then the next, one per tick");
            for (int i = 0; i < 8; i++) {
                w.add(e("c", 1, 2100 + i));
                w.add(e("d", 1, 3100 + i));
            }
            free[0] = 0.05;
            w.tick();
            assertEquals(9 + 6 + 6, w.counters().scarceDestaged(), "very scarce: every window at once, the "
                    + "bootstrap sets of those destaged before kept");
            Map<String, AionWindows.Result> fired = byKey(w.advance(3999));
            assertEquals(4, fired.get("1000/a").events());
            assertEquals(8, fired.get("2000/b").events());
            assertEquals(8, fired.get("4000/d").events(), "every event counts, wherever it was");
        }
    }

    @Test
    void byRateTheSlowestWindowIsDestagedFirstBySizeTheLargest() throws Exception {
        for (String order : List.of("rate", "size")) {
            long[] now = {0};
            double[] free = {0.2};
            try (AionWindows w = windows(new DestagePolicies(0, 0.3, 0, order), now, free)) {
                for (int i = 0; i < 8; i++) {
                    w.add(e("fast", 1, 100 + i));  // [0, 1000): 8 events
                }
                for (int i = 0; i < 4; i++) {
                    w.add(e("slow", 1, 1100 + i));  // [1000, 2000): 4 events in the same time
                }
                now[0] = 2000;
                w.tick();
                assertEquals(order.equals("rate") ? 3 : 6, w.counters().scarceDestaged(), order);
            }
        }
    }

    @Test
    void destagingPoliciesRefuseSettingsOutOfRange() {
        assertThrows(IllegalArgumentException.class, () -> new DestagePolicies(-1, 0, 0, "size"));
        assertThrows(IllegalArgumentException.class, () -> new DestagePolicies(0, 1.0, 0, "size"));
        assertThrows(IllegalArgumentException.class, () -> new DestagePolicies(0, 0.1, 0.3, "size"));
        assertThrows(IllegalArgumentException.class, () -> new DestagePolicies(0, 0.3, 0.1, "fifo"));
    }

    @Test
    void finalResultsEqualARecomputationOfEveryAcceptedEventWhateverTheArrivalOrder() throws Exception {
        finalResultsAreExact(new AionWindows.Settings(1000, 0, 5000, 4, 0.1), 14_000);
        finalResultsAreExact(new AionWindows.Settings(1000, 0, 5000, 4, 0.1).prestagingAhead(200), 14_000);
        // the staleness trigger executes a window's last late events at its cleanup: those cleaned up
        finalResultsAreExact(new AionWindows.Settings(1000, 0, 5000, 4, 0.1, "staleness", 0.05)
                .prestagingAhead(200), 9_000);
    }

    private void finalResultsAreExact(AionWindows.Settings settings, long lastChecked) throws Exception {
        SplittableRandom rng = new SplittableRandom(7);
        Map<String, double[]> exact = new HashMap<>();
        Map<String, AionWindows.Result> last = new HashMap<>();
        try (AionWindows w = windows(settings)) {
            long maxSeen = 0;
            for (int i = 0; i < 3000; i++) {
                long t = i * 5L;
                long late = rng.nextDouble() < 0.2 ? (long) (rng.nextDouble() * 6000) : 0;
                long ts = Math.max(0, t - late);
                String key = "w" + rng.nextInt(5);
                LateEvent ev = e(key, rng.nextInt(1000), ts);
                if (w.add(ev)) {
                    double[] acc = exact.computeIfAbsent(w.windowEnd(ts) + "/" + key, k -> new double[2]);
                    acc[0] += ev.value();
                    acc[1]++;
                }
                maxSeen = Math.max(maxSeen, t);
                if (i % 40 == 0) {
                    last.putAll(byKey(w.advance(maxSeen - 200)));
                }
            }
            last.putAll(byKey(w.reExecute()));
            assertTrue(w.counters().lateAccepted() > 100 && w.counters().lateDropped() > 0);
            assertTrue(w.counters().destaged() > 0 && w.counters().reExecutions() > 0);
        }
        exact.forEach((k, acc) -> {
            if (Long.parseLong(k.split("/")[0]) <= lastChecked) {  // windows the last watermark fired
                assertEquals(acc[0], last.get(k).values().get(1).doubleValue(), k);
                assertEquals((long) acc[1], last.get(k).events(), k);
            }
        });
    }

    @Test
    void refusesSettingsOutOfRange() {
        assertThrows(IllegalArgumentException.class, () -> new AionWindows.Settings(1000, 0, -1, 10, 0.1));
        assertThrows(IllegalArgumentException.class, () -> new AionWindows.Settings(1000, 0, 0, 0, 0.1));
        assertThrows(IllegalArgumentException.class, () -> new AionWindows.Settings(1000, 0, 0, 10, 1.5));
        assertThrows(IllegalArgumentException.class, () -> new AionWindows.Settings(1000, 0, 0, 10, Double.NaN));
    }
}
