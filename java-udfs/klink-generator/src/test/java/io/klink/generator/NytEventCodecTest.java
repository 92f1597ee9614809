package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NytEventCodecTest {

    private final NytEventCodec codec = new NytEventCodec();

    @Test
    void rowsHaveTheDebsColumnsPlusTheEventTime() {
        String line = codec.line(codec.draw(new SplittableRandom(1)), 1_700_000_012_345L);
        String[] c = line.split(",", -1);
        assertEquals(18, c.length, line);
        assertEquals(32, c[0].length());
        assertTrue(c[3].equals("2023-11-14 22:13:32"), c[3]);  // drop-off = the event time's second, UTC
        assertEquals("1700000012345", c[17]);
        double fare = Double.parseDouble(c[11]);
        double total = Double.parseDouble(c[16]);
        double parts = fare + Double.parseDouble(c[12]) + Double.parseDouble(c[13]) + Double.parseDouble(c[14])
                + Double.parseDouble(c[15]);
        assertEquals(parts, total, 0.011);
    }

    @Test
    void sameSeedSameTripsAndPlausibleDistributions() {
        SplittableRandom a = new SplittableRandom(42);
        SplittableRandom b = new SplittableRandom(42);
        int n = 20_000, invalid = 0, inBox = 0;
        double[] miles = new double[n];
        for (int i = 0; i < n; i++) {
            long packed = codec.draw(a);
            assertEquals(codec.line(packed, i), codec.line(codec.draw(b), i));
            String[] c = codec.line(packed, i).split(",");
            double lon = Double.parseDouble(c[6]), lat = Double.parseDouble(c[7]);
            invalid += lon == 0 && lat == 0 ? 1 : 0;
            inBox += lon >= -74.05 && lon <= -73.75 && lat >= 40.58 && lat <= 40.90 ? 1 : 0;
            miles[i] = Double.parseDouble(c[5]);
            double fare = Double.parseDouble(c[11]);
            assertTrue(fare >= 2.5 + 2.5 * miles[i] - 0.01, "fare grows with distance");
        }
        assertEquals(n, invalid + inBox);
        assertEquals(NytEventCodec.INVALID_FRACTION, invalid / (double) n, 0.005);
        java.util.Arrays.sort(miles);
        assertEquals(Math.exp(0.75), miles[n / 2], 0.1);  // log-normal median e^mu
    }

    @Test
    void fixedPointRendering() {
        assertEquals("-73.985000", NytEventCodec.fixed(new StringBuilder(), -73.985, 6).toString());
        assertEquals("0.05", NytEventCodec.fixed(new StringBuilder(), 0.05, 2).toString());
        assertEquals("12.00", NytEventCodec.fixed(new StringBuilder(), 11.999, 2).toString());
    }
}
