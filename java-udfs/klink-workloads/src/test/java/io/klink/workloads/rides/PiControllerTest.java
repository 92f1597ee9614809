package io.klink.workloads.rides;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The PI rule of seed adcom-edbt21.txt §3.2 (e(t), Eq. 1 and 2 as PiController reads them). */
class PiControllerTest {

    private static final PiController.Params PARAMS = new PiController.Params(0.5, 0.8, 1000, 500, 20, 10_000);

    @Test
    void errorIsTheAverageUtilisationMinusTheNearestBandEdgeAndZeroInsideTheBand() {
        assertEquals(0.9 - 0.8, PiController.error(new double[] {0.85, 0.95}, 0.5, 0.8), 1e-12);
        assertEquals(0.1 - 0.5, PiController.error(new double[] {0.0, 0.2}, 0.5, 0.8), 1e-12);
        assertEquals(0.0, PiController.error(new double[] {0.6, 0.7}, 0.5, 0.8), 1e-12);
    }

    @Test
    void oneSaturatedInstanceGivesOneMinusTheDesiredUtilisationWhateverTheAverage() {
        // §3.2: e(t) = −(ρ_d − 1) as soon as any instance is at 100 % (skew), although the average is low
        assertEquals(1 - 0.8, PiController.error(new double[] {1.0, 0.0, 0.0, 0.0}, 0.5, 0.8), 1e-12);
    }

    @Test
    void updateAddsKpTimesTheErrorAndKiTimesTheSumOfTheLastThreeErrors() {
        PiController c = new PiController(PARAMS, 500);
        double e = 0.9 - 0.8;
        // period 1: λ = 500 + 1000·0.1 + 500·0.1
        assertEquals(650, c.update(new double[] {0.9, 0.9}).intervalMs());
        // period 2: λ = 650 + 100 + 500·0.2 = 850
        assertEquals(850, c.update(new double[] {0.9, 0.9}).intervalMs());
        // period 3: + 100 + 150 = 1100; period 4: the integral holds three errors only: + 100 + 150 = 1350
        assertEquals(1100, c.update(new double[] {0.9, 0.9}).intervalMs());
        PiController.Decision d = c.update(new double[] {0.9, 0.9});
        assertEquals(1350, d.intervalMs());
        assertEquals(e, d.error(), 1e-12);
        assertEquals(0.9, d.averageUtilisation(), 1e-12);
    }

    @Test
    void idleBuffersShortenTheIntervalDownToItsMinimumAndFullOnesLengthenItUpToItsMaximum() {
        PiController c = new PiController(PARAMS, 500);
        for (int i = 0; i < 5; i++) {
            c.update(new double[] {0.0, 0.0});
        }
        assertEquals(20, c.intervalMs());
        for (int i = 0; i < 100; i++) {
            c.update(new double[] {1.0, 1.0});
        }
        assertEquals(10_000, c.intervalMs());
    }

    @Test
    void insideTheBandTheIntervalSettlesOnceTheIntegralHasForgottenTheLastErrors() {
        PiController c = new PiController(PARAMS, 500);
        c.update(new double[] {0.95, 0.95});
        long afterExcursion = c.update(new double[] {0.7, 0.7}).intervalMs();
        long second = c.update(new double[] {0.7, 0.7}).intervalMs();
        long third = c.update(new double[] {0.7, 0.7}).intervalMs();
        long fourth = c.update(new double[] {0.7, 0.7}).intervalMs();
        assertTrue(afterExcursion > 500 && second > afterExcursion, "the integral still pushes");
        assertEquals(third, fourth, "three periods later the integral is empty: no correction inside the band");
    }

    @Test
    void refusesABandOutsideZeroOneAndNegativeGains() {
        assertThrows(IllegalArgumentException.class, () -> new PiController.Params(0, 0.8, 1, 1, 20, 100));
        assertThrows(IllegalArgumentException.class, () -> new PiController.Params(0.5, 1.0, 1, 1, 20, 100));
        assertThrows(IllegalArgumentException.class, () -> new PiController.Params(0.9, 0.8, 1, 1, 20, 100));
        assertThrows(IllegalArgumentException.class, () -> new PiController.Params(0.5, 0.8, -1, 1, 20, 100));
        assertThrows(IllegalArgumentException.class, () -> new PiController.Params(0.5, 0.8, 1, -0.1, 20, 100));
        assertThrows(IllegalArgumentException.class, () -> new PiController.Params(0.5, 0.8, 1, Double.NaN, 20, 100));
    }
}
