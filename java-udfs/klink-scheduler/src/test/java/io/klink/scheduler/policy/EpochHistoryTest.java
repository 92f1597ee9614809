package io.klink.scheduler.policy;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EpochHistoryTest {

    @Test
    void accumulatesAnEpochAndFinalisesItOnClose() {
        EpochHistory h = new EpochHistory(400);
        h.add(100);
        h.add(300);
        assertEquals(2, h.openSamples());
        assertEquals(0, h.epochs());
        assertTrue(h.closeEpoch());
        // μ = (100 + 300)/2 = 200, χ = (100² + 300²)/2 = 50 000
        assertEquals(1, h.epochs());
        assertEquals(200.0, h.meanDelay(), 1e-12);
        assertEquals(50_000.0, h.meanSecondMoment(), 1e-9);
        assertEquals(10_000.0, h.pooledVariance(), 1e-9); // 50 000 − 200²
        assertFalse(h.closeEpoch(), "an epoch without samples is not pushed");
        assertEquals(1, h.epochs());
    }

    @Test
    void ringBufferKeepsTheLastHEpochsAndRunningSumsMatchBruteForce() {
        EpochHistory h = new EpochHistory(3);
        for (int i = 1; i <= 5; i++) {
            h.addEpoch(i, i * i + 1);
        }
        // holds epochs 3, 4, 5
        assertEquals(3, h.epochs());
        assertArrayEquals(new double[] {3, 4, 5}, h.epochMeans(), 0.0);
        assertArrayEquals(new double[] {10, 17, 26}, h.epochSecondMoments(), 0.0);
        assertEquals(4.0, h.meanDelay(), 1e-12);
        assertEquals(53.0 / 3, h.meanSecondMoment(), 1e-12);
        assertEquals(KlinkMath.varianceEq6(h.epochMeans(), h.epochSecondMoments()), h.varianceEq6(), 1e-12);

        // a long random run: O(1) running sums (with periodic re-summing) equal the brute force
        EpochHistory big = new EpochHistory(7);
        Random rnd = new Random(42);
        for (int i = 0; i < 10_000; i++) {
            big.addEpoch(1e6 + rnd.nextGaussian() * 50, 1e12 + rnd.nextGaussian() * 1e8);
        }
        assertEquals(KlinkMath.mean(big.epochMeans()), big.meanDelay(), 1e-6);
        assertEquals(KlinkMath.mean(big.epochSecondMoments()), big.meanSecondMoment(), 1e-1);
    }

    @Test
    void rejectsEmptyHistory() {
        assertThrows(IllegalArgumentException.class, () -> new EpochHistory(0));
    }
}
