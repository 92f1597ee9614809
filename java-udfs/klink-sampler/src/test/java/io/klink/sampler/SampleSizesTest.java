package io.klink.sampler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SampleSizesTest {

    @Test
    void zIsTheTwoSidedNormalQuantile() {
        assertEquals(1.959964, SampleSizes.z(0.95), 1e-6);
        assertEquals(2.575829, SampleSizes.z(0.99), 1e-6);
        assertThrows(IllegalArgumentException.class, () -> SampleSizes.z(1.0));
    }

    @Test
    void substreamSizeIsItsLengthOverTheMeanGap() {  // Eq. 4.2
        assertEquals(300.0, SampleSizes.substreamSize(600, 2.0), 1e-12);
    }

    @Test
    void windowSampleSizeMatchesEq44ByHand() {
        // z = 1.959964, r = 0.05, cv² = 9 (10 equal keys), N = 30 000:
        // n = 3.841459·9 / (0.0025 + 3.841459·9/30 000) = 34.57313 / 0.00365244 = 9465.77
        assertEquals(9465.77, SampleSizes.windowSampleSize(1.959964, 0.05, 9, 30_000), 0.01);
        // cv² = 1, N = 500: 3.841459 / (0.0025 + 0.00768292) = 377.25
        assertEquals(377.25, SampleSizes.windowSampleSize(1.959964, 0.05, 1, 500), 0.01);
    }

    @Test
    void windowSampleNeverExceedsTheWindow() {
        assertEquals(100.0, SampleSizes.windowSampleSize(1.96, 0.01, 1e6, 100), 1e-6);
        assertEquals(0.0, SampleSizes.windowSampleSize(1.96, 0.05, 9, 0), 1e-12);
    }

    @Test
    void eventsByTheDeadlineLeaveOutTheMeanDelay() {  // Eq. 4.7
        assertEquals(360.0, SampleSizes.arrivedByDeadline(600, 240, 1.0), 1e-12);
        assertEquals(180.0, SampleSizes.arrivedByDeadline(600, 240, 2.0), 1e-12);
        assertEquals(1.0, SampleSizes.arrivedByDeadline(600, 900, 1.0), 1e-12);  // delay beyond f: at least one
    }

    @Test
    void samplingRateIsTheSubstreamSampleOverTheEventsByTheDeadline() {  // Eq. 4.8
        assertEquals(0.5, SampleSizes.samplingRate(180, 360), 1e-12);
        assertEquals(1.0, SampleSizes.samplingRate(400, 360), 1e-12);
    }
}
