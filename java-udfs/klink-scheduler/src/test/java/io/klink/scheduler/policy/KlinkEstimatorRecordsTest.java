package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.klink.scheduler.policy.Fx.T0;
import static io.klink.scheduler.policy.Fx.klink;
import static io.klink.scheduler.policy.Fx.queries;
import static io.klink.scheduler.policy.Fx.query;
import static io.klink.scheduler.policy.Fx.snap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Klink's SWM detection and the estimator records it keeps (moved from KlinkPolicyTest unchanged). */
class KlinkEstimatorRecordsTest {

    private static SchedulerState lagging(long now, long deadline) {
        // the ingested watermark trails the wall clock by exactly 300 ms
        return Fx.state(now, 100, 0.1, query("q"),
                snap("q-src").queued(1).wm(now - 300), snap("q-win").queued(1).cost(1000).deadline(deadline).wm(now - 400));
    }

    @Test
    void learnsTheIngestionDelayAndRecordsPredictionAccuracy() {
        KlinkPolicy k = klink(100, Map.of());
        long d1 = T0 + 1000;
        long now = T0;
        for (; now <= d1 + 200; now += 100) {         // watermark below d1
            k.choose(lagging(now, d1), 2);
        }
        assertTrue(k.drainEstimatorRecords().isEmpty());
        k.choose(lagging(now, d1), 2);               // now = d1 + 300: watermark reaches d1
        List<EstimatorRecord> recs = k.drainEstimatorRecords();
        assertEquals(2, recs.size());
        EstimatorRecord kr = recs.get(0);
        assertEquals("klink", kr.estimator());
        assertEquals(d1 + 300, kr.actualMs());       // interpolated crossing
        assertEquals(d1, kr.predicted().meanMs(), 0.0); // cold start: centred on the deadline, σ = r
        assertEquals(SwmSkip.NO_HISTORY, kr.skipped(), "a cold-start guess is not scored");
        assertEquals(300.0, kr.errorMs(), 0.0);
        assertEquals("lr", recs.get(1).estimator());
        assertEquals(SwmSkip.NO_HISTORY, recs.get(1).skipped());

        // the window fires: next deadline d2 = d1 + 1000 → epoch closed with delay samples all 300 ms
        long d2 = d1 + 1000;
        now += 100;
        for (; now <= d2 + 200; now += 100) {
            k.choose(lagging(now, d2), 2);
        }
        EpochHistory h = k.estimator("q", "q").history();
        assertEquals(1, h.epochs());
        assertEquals(300.0, h.meanDelay(), 1e-9);
        SwmInterval next = k.estimator("q", "q").predict(d2);
        assertEquals(d2 + 300, next.meanMs(), 1e-9);
        k.choose(lagging(now, d2), 2);               // now = d2 + 300
        List<EstimatorRecord> recs2 = k.drainEstimatorRecords();
        assertEquals(d2 + 300, recs2.get(0).actualMs());
        assertTrue(recs2.get(0).predicted().contains(d2 + 300), "Klink's prediction d2 + 300 ± 1.96 ms holds the SWM");
        assertEquals(SwmSkip.NO_HISTORY, recs2.get(0).skipped(), "LR has 1 point: neither is scored yet");
    }

    /** Runs the lagging query through {@code windows} windows of 1 s from T0 + 1000; returns every record. */
    private static List<EstimatorRecord> runWindows(KlinkPolicy k, int windows) {
        List<EstimatorRecord> all = new ArrayList<>();
        for (int w = 1; w <= windows; w++) {
            long d = T0 + 1000L * w;
            for (long now = d - 900; now <= d + 300; now += 100) { // crosses at d + 300, fires after
                k.choose(lagging(now, d), 2);
            }
            all.addAll(k.drainEstimatorRecords());
        }
        return all;
    }

    @Test
    void bothEstimatorsAreScoredOnceBothHaveHistory() {
        KlinkPolicy k = klink(100, Map.of());
        List<EstimatorRecord> recs = runWindows(k, 6);
        assertEquals(12, recs.size(), "one record per SWM and estimator");
        // LR needs 3 observed SWMs (epochs 1-3 closed before the prediction of window 4)
        for (int w = 0; w < 6; w++) {
            SwmSkip expected = w < 3 ? SwmSkip.NO_HISTORY : null;
            assertEquals(expected, recs.get(2 * w).skipped(), "klink, window " + (w + 1));
            assertEquals(expected, recs.get(2 * w + 1).skipped(), "lr, window " + (w + 1));
        }
        EstimatorRecord lr = recs.get(9);
        assertEquals("lr", lr.estimator());
        assertEquals(T0 + 5300, lr.predicted().meanMs(), 1e-6, "an exact line: deadline + 300");
        assertTrue(recs.get(8).inside());
    }

    @Test
    void lrLooksBackOverTheSameEpochsAsKlink() {
        KlinkPolicy k = klink(100, Map.of("h", "2"));
        runWindows(k, 5);
        // deadline of window 6 is pending: epochs 1-5 closed, both keep the last h = 2
        assertEquals(2, k.estimator("q", "q").history().epochs());
        assertEquals(2, k.baseline("q", "q").epochs());
        assertEquals(2, k.baseline("q", "q").points());
    }

    @Test
    void anEpochWithoutAnObservedCrossingIsAGapForLrButAnEpochForKlink() {
        KlinkPolicy k = klink(100, Map.of());
        long d1 = T0 + 1000;
        // the source reports no watermark until after the crossing: its time is unknown
        for (long now = T0; now <= d1; now += 100) {
            k.choose(Fx.state(now, 100, 0.1, query("q"), snap("q-src").queued(1),
                    snap("q-win").queued(1).cost(1000).deadline(d1)), 2);
        }
        k.choose(lagging(d1 + 400, d1), 2);          // first watermark, already past d1
        List<EstimatorRecord> recs = k.drainEstimatorRecords();
        assertEquals(SwmSkip.CROSSING_NOT_OBSERVED, recs.get(0).skipped());
        assertFalse(recs.get(0).actualKnown());
        assertTrue(Double.isNaN(recs.get(0).errorMs()));
        k.choose(lagging(d1 + 500, d1 + 1000), 2);   // the window fired: epoch 1 closes
        assertEquals(1, k.estimator("q", "q").history().epochs());
        assertEquals(1, k.baseline("q", "q").epochs());
        assertEquals(0, k.baseline("q", "q").points());
    }

    @Test
    void aDeadlineAlreadyPassedWhenItBecomesPendingIsSkipped() {
        KlinkPolicy k = klink(100, Map.of());
        k.choose(lagging(T0, T0 - 1000), 2);         // watermark T0 − 300 ≥ deadline T0 − 1000
        List<EstimatorRecord> recs = k.drainEstimatorRecords();
        assertEquals(2, recs.size());
        assertEquals(SwmSkip.INGESTED_BEFORE_PREDICTION, recs.get(0).skipped());
        k.choose(lagging(T0 + 100, T0 - 1000), 2);
        assertTrue(k.drainEstimatorRecords().isEmpty(), "counted once");
    }

    @Test
    void aDeadlineThatChangesBeforeItsSwmIsSkipped() {
        KlinkPolicy k = klink(100, Map.of());
        k.choose(lagging(T0, T0 + 5000), 2);
        assertTrue(k.drainEstimatorRecords().isEmpty());
        k.choose(lagging(T0 + 100, T0 + 2000), 2);   // an earlier window opened
        List<EstimatorRecord> recs = k.drainEstimatorRecords();
        assertEquals(2, recs.size());
        assertEquals(SwmSkip.DEADLINE_CHANGED, recs.get(0).skipped());
        assertEquals(T0 + 5000, recs.get(0).deadlineMs());
    }

    @Test
    void pendingPredictionsEndWithTheRunOrTheirQuery() {
        KlinkPolicy k = klink(100, Map.of());
        k.choose(Fx.state(T0, 100, 0.1, queries("a", "b"),
                snap("a-src").wm(T0), snap("a-win").deadline(T0 + 3000),
                snap("b-src").wm(T0), snap("b-win").deadline(T0 + 3000)), 2);
        k.choose(Fx.state(T0 + 100, 100, 0.1, query("a"), snap("a-src").wm(T0), snap("a-win").deadline(T0 + 3000)), 2);
        List<EstimatorRecord> gone = k.drainEstimatorRecords();
        assertEquals(List.of("b", "b"), gone.stream().map(EstimatorRecord::queryId).toList());
        assertEquals(SwmSkip.RUN_ENDED, gone.get(0).skipped());
        k.finish();
        List<EstimatorRecord> ended = k.drainEstimatorRecords();
        assertEquals(List.of("a", "a"), ended.stream().map(EstimatorRecord::queryId).toList());
        assertEquals(SwmSkip.RUN_ENDED, ended.get(1).skipped());
        k.finish();
        assertTrue(k.drainEstimatorRecords().isEmpty(), "counted once");
    }

    @Test
    void crossingTimeInterpolates() {
        assertEquals(150, KlinkPolicy.crossingTime(100, 0, 200, 100, 50));
        assertEquals(200, KlinkPolicy.crossingTime(100, 0, 200, 0, 50)); // no progress: now
    }
}
