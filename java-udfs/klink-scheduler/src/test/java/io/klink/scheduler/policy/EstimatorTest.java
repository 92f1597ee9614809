package io.klink.scheduler.policy;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EstimatorTest {

    private static final double Z95 = 1.959963985;

    @Test
    void klinkColdStartCentresOnTheDeadline() {
        KlinkEstimator e = new KlinkEstimator(400, 0.95, 120);
        SwmInterval iv = e.predict(10_000);
        assertEquals(10_000, iv.meanMs(), 0.0);
        assertEquals(120, iv.sigmaMs(), 0.0);
        assertEquals(10_000 - Z95 * 120, iv.tMinMs(), 1e-6);
    }

    @Test
    void klinkIntervalFromEpochHistory() {
        // three epochs with one delay sample each: 100, 200, 300 ms
        // μ̄ = 200, χ̄ = (1e4 + 4e4 + 9e4)/3 = 46 666.67, pooled var = 46 666.67 − 40 000 = 6 666.67, σ = 81.6497
        KlinkEstimator e = new KlinkEstimator(400, 0.95, 120);
        for (int d : new int[] {100, 200, 300}) {
            e.addDelay(d);
            e.closeEpoch();
        }
        SwmInterval iv = e.predict(50_000);
        assertEquals(50_200, iv.meanMs(), 1e-9);
        assertEquals(81.6496581, iv.sigmaMs(), 1e-6);
        assertEquals(50_200 - Z95 * 81.6496581, iv.tMinMs(), 1e-5);
        assertEquals(50_200 + Z95 * 81.6496581, iv.tMaxMs(), 1e-5);
        assertTrue(iv.contains(50_300));
        assertFalse(iv.contains(50_400));
    }

    @Test
    void klinkSigmaHasAFloor() {
        KlinkEstimator e = new KlinkEstimator(10, 0.95, 120);
        e.addDelay(250);
        e.closeEpoch();
        assertEquals(KlinkEstimator.SIGMA_FLOOR_MS, e.predict(0).sigmaMs(), 0.0);
    }

    @Test
    void linearRegressionExtrapolatesAnExactLine() {
        LinearRegressionEstimator lr = new LinearRegressionEstimator(400, 0.95);
        assertEquals(777, lr.predict(777).meanMs(), 0.0); // no data: the deadline
        long base = 1_700_000_000_000L; // epoch-ms magnitudes must not lose precision
        for (int i = 0; i < 5; i++) {
            lr.addEpoch(base + 3_000L * i, base + 3_000L * i + 250);
        }
        SwmInterval iv = lr.predict(base + 15_000);
        assertEquals(base + 15_250, iv.meanMs(), 1e-3);
        assertEquals(0.0, iv.sigmaMs(), 1e-9); // perfect fit
        assertTrue(lr.hasHistory());
    }

    @Test
    void linearRegressionPredictionIntervalByHand() {
        // points (x = deadline / 1000, y): (0, 0), (1, 10), (2, 14): x̄ = 1, ȳ = 8, Sxx = 2, Sxy = 14
        // slope 7, intercept 1; residuals −1, 2, −1 → SSE = 6, s = √(6/1) = 2.449490
        // at x0 = 3: ŷ = 22; se = s·√(1 + 1/3 + (3 − 1)²/2) = 2.449490·√(10/3) = 4.472136
        LinearRegressionEstimator lr = new LinearRegressionEstimator(3, 0.95);
        lr.addEpoch(-1000, 999); // evicted: h = 3
        lr.addEpoch(0, 0);
        lr.addEpoch(1000, 10);
        lr.addEpoch(2000, 14);
        SwmInterval iv = lr.predict(3000);
        assertEquals(22.0, iv.meanMs(), 1e-9);
        assertEquals(4.472136, iv.sigmaMs(), 1e-6);
        assertEquals(22.0 + Z95 * 4.472136, iv.tMaxMs(), 1e-5);
    }

    @Test
    void linearRegressionEpochsWithoutACrossingAreGapsNotPoints() {
        // h = 4 epochs; the unobserved one holds a slot (the window spans the same epochs as Klink's)
        LinearRegressionEstimator lr = new LinearRegressionEstimator(4, 0.95);
        lr.addEpoch(0, 500);
        lr.addEpoch(1000, EstimatorRecord.UNKNOWN);
        lr.addEpoch(2000, 2500);
        assertEquals(3, lr.epochs());
        assertEquals(2, lr.points());
        assertFalse(lr.hasHistory(), "2 points give no spread");
        assertEquals(0.0, lr.predict(3000).sigmaMs(), 0.0);
        lr.addEpoch(3000, 3500);
        lr.addEpoch(4000, 4500); // evicts (0, 500)
        assertEquals(4, lr.epochs());
        assertEquals(3, lr.points());
        // the gap does not shift the x axis: still deadline + 500
        assertEquals(5500.0, lr.predict(5000).meanMs(), 1e-9);
    }

    @Test
    void estimatorRecordScoresInsideAndError() {
        EstimatorRecord r = new EstimatorRecord("klink", "q1", "q1", 1000, new SwmInterval(1200, 50, 1100, 1300), 1290);
        assertTrue(r.inside());
        assertEquals(90.0, r.errorMs(), 0.0);
        assertFalse(new EstimatorRecord("lr", "q1", "q1", 1000, new SwmInterval(1200, 50, 1100, 1300), 1301).inside());
        EstimatorRecord skipped = new EstimatorRecord("lr", "q1", "q1", 1000, new SwmInterval(1200, 50, 1100, 1300),
                1290, SwmSkip.NO_HISTORY);
        assertFalse(skipped.scored());
        assertFalse(skipped.inside(), "a skipped SWM is never counted inside");
        assertEquals("no_history", SwmSkip.NO_HISTORY.csvName());
    }
}
