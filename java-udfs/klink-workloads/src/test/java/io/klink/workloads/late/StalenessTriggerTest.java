package io.klink.workloads.late;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** §3.4's staleness trigger and Fig. 9's baselines on known distributions of late arrivals over [0, T]. */
class StalenessTriggerTest {

    private static final LateArrivals UNIFORM = LateArrivals.uniform();

    /** exp(μ + σZ) in units of T, sampled with a fixed seed into 1000 cells (what is past T is never late). */
    static LateArrivals lognormal(double median, double sigma) {
        double[] counts = new double[1000];
        Random rng = new Random(7);
        for (int i = 0; i < 200_000; i++) {
            double u = median * Math.exp(sigma * rng.nextGaussian());
            if (u < 1) {
                counts[(int) (u * counts.length)]++;
            }
        }
        return LateArrivals.fromCounts(counts);
    }

    static LateArrivals exponential(double mean) {
        double[] cdf = new double[501];
        for (int i = 0; i < cdf.length; i++) {
            cdf[i] = 1 - Math.exp(-(i / 500.0) / mean);
        }
        return LateArrivals.fromCdf(cdf);
    }

    @Test
    void theDistributionIsExactBetweenItsPointsAndItsQuantileInvertsIt() {
        LateArrivals f = LateArrivals.fromCounts(new double[] {3, 0, 1});
        assertEquals(0.375, f.cdf(1 / 6.0), 1e-12);
        assertEquals(0.5625, f.cdf(0.25), 1e-12);
        assertEquals(0.75, f.cdf(0.5), 1e-12);
        assertEquals(1.0 / 3, f.quantile(0.75), 1e-12, "the first time the fraction is reached");
        assertEquals(5 / 6.0, f.quantile(0.875), 1e-12);
        assertEquals((0.5 - 0.25) * (0.75 - 0.5625), f.staleness(0.25, 0.5), 1e-12);
    }

    @Test
    void uniformArrivalsGetEvenlySpacedExecutionsAndDeltaTIsAsGoodThere() {
        double[] even = StalenessTrigger.deltaT(10);
        assertArrayEquals(even, StalenessTrigger.balanced(UNIFORM, 10).times(), 1e-4);
        assertEquals(0.01, StalenessTrigger.maxStaleness(UNIFORM, even), 1e-12);
        StalenessTrigger.Schedule plan = StalenessTrigger.plan(UNIFORM, 0.012);
        assertEquals(10, plan.executions(), "ceil(1 / sqrt(0.012)) intervals");
        assertArrayEquals(even, plan.times(), 1e-4);
        double[] greedy = StalenessTrigger.greedy(UNIFORM, 0.012).times();
        assertEquals(Math.sqrt(0.012), greedy[0], 1e-9, "each execution as late as the bound allows");
        assertEquals(0.012, StalenessTrigger.maxStaleness(UNIFORM, greedy), 1e-9);
    }

    @Test
    void theGreedyCountIsTheFewestAnySchedulePlacedOnAFineGridNeeds() {
        LateArrivals f = LateArrivals.fromCounts(new double[] {8, 1, 0, 1});
        double bound = 0.15;
        assertEquals(3, StalenessTrigger.greedy(f, bound).executions());
        double best = Double.MAX_VALUE;
        for (int i = 1; i < 1000; i++) {  // every 2-execution schedule (the second at T) on a grid of 1/1000
            best = Math.min(best, StalenessTrigger.maxStaleness(f, new double[] {i / 1000.0, 1}));
        }
        assertTrue(best > bound, "two executions cannot keep " + bound + ", best " + best);
        double balanced = StalenessTrigger.maxStaleness(f, StalenessTrigger.balanced(f, 2).times());
        assertEquals(best, balanced, 1e-3, "balancing finds the grid's optimum");
    }

    @Test
    void balancingNeverDoesWorseThanGreedyForTheSameCountAndEvensTheStaleness() {
        for (LateArrivals f : new LateArrivals[] {lognormal(0.1, 1), exponential(0.2), UNIFORM}) {
            for (double bound : new double[] {0.1, 0.05, 0.01, 0.002}) {
                StalenessTrigger.Schedule greedy = StalenessTrigger.greedy(f, bound);
                StalenessTrigger.Schedule balanced = StalenessTrigger.balanced(f, greedy.executions());
                double g = StalenessTrigger.maxStaleness(f, greedy.times());
                double b = StalenessTrigger.maxStaleness(f, balanced.times());
                assertTrue(g <= bound * (1 + 1e-9) && b <= g * (1 + 1e-9), bound + ": greedy " + g + ", balanced " + b);
                assertTrue(balanced.sweeps() < StalenessTrigger.MAX_SWEEPS, "converged for " + bound);
                double[] st = StalenessTrigger.stalenessValues(f, balanced.times());
                double min = java.util.Arrays.stream(st).min().orElseThrow();
                assertEquals(b, min, b * 1e-3, "every interval as stale as the worst");
            }
        }
    }

    @Test
    void deltaEvSplitsTheExpectedEventsEvenlyAndBothBaselinesNeedMoreExecutionsOnSkewedArrivals() {
        LateArrivals f = lognormal(0.1, 1);
        double[] ev = StalenessTrigger.deltaEv(f, 4);
        for (int i = 0; i < 3; i++) {
            assertEquals((i + 1) / 4.0, f.cdf(ev[i]), 1e-9);
        }
        int aion = StalenessTrigger.plan(f, 0.05).executions();
        double aionMax = StalenessTrigger.maxStaleness(f, StalenessTrigger.balanced(f, aion).times());
        assertTrue(StalenessTrigger.maxStaleness(f, StalenessTrigger.deltaT(aion)) > aionMax);
        assertTrue(StalenessTrigger.maxStaleness(f, StalenessTrigger.deltaEv(f, aion)) > aionMax);
    }

    @Test
    void badInputIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> StalenessTrigger.greedy(UNIFORM, 0));
        assertThrows(IllegalArgumentException.class, () -> StalenessTrigger.greedy(UNIFORM, 1.5));
        assertThrows(IllegalArgumentException.class, () -> StalenessTrigger.balanced(UNIFORM, 0));
        assertThrows(IllegalArgumentException.class, () -> LateArrivals.fromCounts(new double[] {1, -1}));
        assertThrows(IllegalArgumentException.class, () -> LateArrivals.fromCdf(new double[] {0, 0.6, 0.4, 1}));
        assertEquals(1, StalenessTrigger.plan(UNIFORM, 1).executions(), "bound 1: the final execution only");
    }
}
