package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RidesEventCodecTest {

    private static int[] regionCounts(RidesEventCodec codec, int regions, int trips) {
        SplittableRandom rng = new SplittableRandom(3);
        int[] counts = new int[regions];
        for (int i = 0; i < trips; i++) {
            String[] c = new String(codec.encode(codec.draw(rng), 1_000L + i), StandardCharsets.US_ASCII).split(",");
            assertEquals(5, c.length);
            counts[Integer.parseInt(c[0].substring(1))]++;
            int passengers = Integer.parseInt(c[2]);
            assertTrue(passengers >= 1 && passengers <= 6);
            assertTrue(Double.parseDouble(c[3]) >= 2.5);
            assertEquals(1_000L + i, Long.parseLong(c[4]));
        }
        return counts;
    }

    @Test
    void regionSharesFollowTheZipfLaw() {
        int n = 10, trips = 200_000;
        double s = 1.2, norm = 0;
        for (int k = 1; k <= n; k++) {
            norm += Math.pow(k, -s);
        }
        int[] counts = regionCounts(new RidesEventCodec(n, s), n, trips);
        for (int k = 1; k <= n; k++) {
            double expected = Math.pow(k, -s) / norm;
            assertEquals(expected, counts[k - 1] / (double) trips, 0.005, "region " + (k - 1));
        }
    }

    @Test
    void skewZeroIsUniform() {
        int[] counts = regionCounts(new RidesEventCodec(4, 0), 4, 40_000);
        for (int c : counts) {
            assertEquals(0.25, c / 40_000.0, 0.01);
        }
    }

    @Test
    void theSameDrawGivesTheSameTrip() {
        RidesEventCodec codec = new RidesEventCodec(50, 1.0);
        long packed = codec.draw(new SplittableRandom(9));
        assertEquals(new String(codec.encode(packed, 5)), new String(codec.encode(packed, 5)));
        assertThrows(IllegalArgumentException.class, () -> new RidesEventCodec(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new RidesEventCodec(5, -1));
    }
}
