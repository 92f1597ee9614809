package io.klink.scheduler.policy;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class KlinkMathTest {

    @Test
    void qFunctionMatchesTabulatedValues() {
        // Standard normal tail values (any statistics table): Q(0) = 0.5, Q(1) = 0.158655254,
        // Q(1.96) = 0.0249978951, Q(3) = 0.001349898; Q(−x) = 1 − Q(x).
        assertEquals(0.5, KlinkMath.q(0.0), 1e-12);
        assertEquals(0.158655254, KlinkMath.q(1.0), 1e-9);
        assertEquals(0.0249978951, KlinkMath.q(1.96), 1e-10);
        assertEquals(0.001349898, KlinkMath.q(3.0), 1e-9);
        assertEquals(1.0 - 0.158655254, KlinkMath.q(-1.0), 1e-9);
        assertEquals(0.0227501319, KlinkMath.q(2.0), 1e-10);
    }

    @Test
    void erfcIsAccurateOnBothBranchesAndTails() {
        // Reference values (17 significant digits) of erfc; relative error required < 1e-7, we get < 1e-11.
        double[][] ref = {
                {0.5, 0.4795001221869535}, {1.0, 0.15729920705028513}, {2.0, 0.004677734981047266},
                {2.49, 0.000429287867733913}, {2.5, 0.0004069520174449589}, {3.0, 2.2090496998585438e-05},
                {5.0, 1.5374597944280349e-12}, {10.0, 2.088487583762545e-45}, {-1.0, 1.8427007929497148},
        };
        for (double[] r : ref) {
            assertEquals(r[1], KlinkMath.erfc(r[0]), Math.abs(r[1]) * 1e-11, "erfc(" + r[0] + ")");
        }
        assertEquals(1.0, KlinkMath.erfc(0.0), 0.0);
        assertEquals(0.0, KlinkMath.erfc(40.0), 0.0);
        assertEquals(2.0, KlinkMath.erfc(-40.0), 0.0);
    }

    @Test
    void confidenceQuantileInvertsQ() {
        assertEquals(1.959963985, KlinkMath.zForConfidence(0.95), 1e-8);
        assertEquals(1.644853627, KlinkMath.zForConfidence(0.90), 1e-8);
        assertEquals(0.3, KlinkMath.q(KlinkMath.inverseQ(0.3)), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> KlinkMath.zForConfidence(1.0));
        // Eq. 7: mean 1000, σ 100, f = 0.95 → [1000 − 195.9964, 1000 + 195.9964]
        assertArrayEquals(new double[] {804.0036015, 1195.9963985},
                KlinkMath.confidenceInterval(1000, 100, 0.95), 1e-6);
    }

    @Test
    void sliceProbabilityEq10AndConditionalEq9() {
        // w ~ N(200, 100²): P(100 ≤ w ≤ 200) = Q(−1) − Q(0) = 0.841344746 − 0.5 = 0.341344746
        assertEquals(0.341344746, KlinkMath.sliceProbability(100, 100, 200, 100), 1e-9);
        // Eq. 9 given w ≥ 150: P(w ≥ 150) = Q(−0.5) = 0.691462461;
        // P(200 ≤ w ≤ 300 | w ≥ 150) = (Q(0) − Q(1)) / 0.691462461 = 0.341344746 / 0.691462461 = 0.493656…
        assertEquals(0.341344746 / 0.691462461, KlinkMath.conditionalSliceProbability(200, 100, 150, 200, 100), 1e-8);
        // slices starting before t carry no probability
        assertEquals(0.0, KlinkMath.conditionalSliceProbability(100, 100, 150, 200, 100), 0.0);
        // σ = 0: a point mass at the mean
        assertEquals(1.0, KlinkMath.sliceProbability(150, 100, 200, 0), 0.0);
        assertEquals(0.0, KlinkMath.sliceProbability(250, 100, 200, 0), 0.0);
    }

    @Test
    void expectedSlackEq8ByHand() {
        // w ~ N(200, 100²), t = 0, [t_min, t_max] = [0, 300], r = 100, cost = 50.
        // Slices x = 0, 100, 200, 300 (x ≤ t_max), each weighted by P(x ≤ w ≤ x+r) / P(w ≥ 0):
        //   P(0..100)   = Q(−2) − Q(−1) = 0.977249868 − 0.841344746 = 0.135905122, term (100 − 0) − 50 =  50
        //   P(100..200) = Q(−1) − Q(0)  = 0.341344746,                              term 200 − 50      = 150
        //   P(200..300) = Q(0)  − Q(1)  = 0.341344746,                              term 300 − 50      = 250
        //   P(300..400) = Q(1)  − Q(2)  = 0.158655254 − 0.022750132 = 0.135905122, term 400 − 50      = 350
        // numerator = 0.135905122·(50 + 350) + 0.341344746·(150 + 250) = 400 · 0.477249868 = 190.8999472
        // P(w ≥ 0) = Q(−2) = 0.977249868 → sl = 190.8999472 / 0.977249868 = 195.34405
        assertEquals(195.34405, KlinkMath.expectedSlack(0, 200, 100, 0, 300, 100, 50), 1e-4);

        // t = 150 inside the interval: x starts at max(t, t_min) = 150; slices 150 and 250.
        //   P(w ≥ 150) = Q(−0.5) = 0.691462461
        //   P(150..250) = Q(−0.5) − Q(0.5) = 0.691462461 − 0.308537539 = 0.382924923, term (250 − 150) − 50 = 50
        //   P(250..350) = Q(0.5) − Q(1.5) = 0.308537539 − 0.066807201 = 0.241730337, term (350 − 150) − 50 = 150
        //   sl = (0.382924923·50 + 0.241730337·150) / 0.691462461 = (19.14624615 + 36.25955055) / 0.691462461
        //      = 55.4057967 / 0.691462461 = 80.12842
        assertEquals(80.12842, KlinkMath.expectedSlack(150, 200, 100, 0, 300, 100, 50), 1e-4);

        // t past t_max: empty sum, as Alg. 1 (sl initialised to 0)
        assertEquals(0.0, KlinkMath.expectedSlack(301, 200, 100, 0, 300, 100, 50), 0.0);
        // Eq. 1
        assertEquals(-30.0, KlinkMath.slack(100, 80, 50), 0.0);
    }

    @Test
    void expectedSlackFallsWithCostAndWithTime() {
        double a = KlinkMath.expectedSlack(0, 1000, 50, 902, 1098, 20, 100);
        double b = KlinkMath.expectedSlack(0, 1000, 50, 902, 1098, 20, 400);
        double c = KlinkMath.expectedSlack(300, 1000, 50, 902, 1098, 20, 100);
        assertEquals(300 * 0.95, a - b, 300 * 0.02); // cost enters with weight ≈ f
        assertEquals(true, c < a);
    }

    @Test
    void eq6LiteralIsTheVarianceOfTheMeanAndPooledIsPerEpoch() {
        // Two epochs: μ = {1, 3}, χ = {2, 10} (each epoch has variance χ − μ² = 1).
        // Eq. 6: (1/N)[χ̄ + (1/N)Σ_{i≠j} μ_iμ_j] − μ̄² with N = 2, χ̄ = 6, Σ_{i≠j} = 2·1·3 = 6, μ̄ = 2:
        //   (1/2)(6 + 6/2) − 4 = 4.5 − 4 = 0.5 = (1/N²)·Σ(χ_i − μ_i²) = (1 + 1)/4
        assertEquals(0.5, KlinkMath.varianceEq6(new double[] {1, 3}, new double[] {2, 10}), 1e-12);
        // pooled: χ̄ − μ̄² = 6 − 4 = 2 (within-epoch 1 + between-epoch 1)
        assertEquals(2.0, KlinkMath.pooledVariance(2, 6), 1e-12);
        assertEquals(2.0, KlinkMath.mean(new double[] {1, 3}), 0.0);
        assertEquals(0.0, KlinkMath.varianceEq6(new double[0], new double[0]), 0.0);
    }

    @Test
    void joinTakesTheMinimumSlack() {
        assertEquals(-5.0, KlinkMath.joinSlack(10.0, -5.0, 3.0), 0.0);
        assertEquals(7.0, KlinkMath.joinSlack(7.0), 0.0);
        assertThrows(IllegalArgumentException.class, KlinkMath::joinSlack);
    }

    @Test
    void drainCostByHand() {
        // stages: queued {10, 4, 2}, cost {100, 50, 10} ns, selectivity {0.5, 0.25, 1}
        // stage 0: n = 10                → 10·100 = 1000, passes 5
        // stage 1: n = 5 + 4 = 9         →  9·50  =  450, passes 2.25
        // stage 2: n = 2.25 + 2 = 4.25   → 4.25·10 = 42.5
        // total = 1492.5 ns
        assertEquals(1492.5, KlinkMath.drainCostNs(new long[] {10, 4, 2}, new double[] {100, 50, 10},
                new double[] {0.5, 0.25, 1}), 1e-9);
    }

    @Test
    void memoryReliefByHand() {
        // non-source stages: filter (queued 1000, 1000 ns, S = 0.25), window (queued 200, 2000 ns, S = 0.01)
        // r = 100 ms → 1e8 ns.
        // k = 1: sz = 1000, per-event 1000 ns → 1e5 processable → p = 1000·(1 − 0.25) = 750
        // k = 2: sz = 1200, per-event 1000 + 0.25·2000 = 1500 ns → 66 666 processable
        //        p = 1200·(1 − 0.25·0.01) = 1200·0.9975 = 1197
        assertArrayEquals(new double[] {750, 1197}, KlinkMath.memoryRelief(new long[] {1000, 200},
                new double[] {1000, 2000}, new double[] {0.25, 0.01}, 100), 1e-9);
        // the cap: r = 0.5 ms lets one core push 500 events through the filter → p_1 = 500·0.75
        assertEquals(375.0, KlinkMath.memoryRelief(new long[] {1000}, new double[] {1000},
                new double[] {0.25}, 0.5)[0], 1e-9);
    }
}
