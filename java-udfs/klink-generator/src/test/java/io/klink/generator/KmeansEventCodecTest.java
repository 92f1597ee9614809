package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KmeansEventCodecTest {

    @Test
    void pointsLieAroundTheDriftingCentresAndAFewAreOutliers() {
        KmeansEventCodec codec = new KmeansEventCodec();
        SplittableRandom stream = new SplittableRandom(42);
        int outliers = 0, n = 20_000;
        for (int i = 0; i < n; i++) {
            long t = 1_700_000_000_000L + i;
            String[] cells = new String(codec.encode(codec.draw(stream), t), StandardCharsets.US_ASCII).split(",");
            assertEquals(3, cells.length);
            assertEquals(t, Long.parseLong(cells[2]));
            double x = Double.parseDouble(cells[0]), y = Double.parseDouble(cells[1]);
            if (Math.abs(x) > 100 || Math.abs(y) > 100) {
                outliers++;
                continue;
            }
            double nearest = Double.POSITIVE_INFINITY;
            for (int c = 0; c < KmeansEventCodec.CENTRES; c++) {
                double[] centre = KmeansEventCodec.centre(c, t);
                nearest = Math.min(nearest, Math.hypot(x - centre[0], y - centre[1]));
            }
            assertTrue(nearest < 8 * KmeansEventCodec.SPREAD, "a point far from every centre: " + x + "," + y);
        }
        assertEquals(KmeansEventCodec.OUTLIER_FRACTION, (double) outliers / n, 0.005);
    }

    @Test
    void centresDriftAroundTheirHomesOncePerPeriod() {
        double[] start = KmeansEventCodec.centre(0, 0);
        double[] half = KmeansEventCodec.centre(0, (long) (KmeansEventCodec.DRIFT_PERIOD_MS / 2));
        assertEquals(2 * KmeansEventCodec.DRIFT_RADIUS, Math.hypot(start[0] - half[0], start[1] - half[1]), 1e-9);
        double[] full = KmeansEventCodec.centre(0, (long) KmeansEventCodec.DRIFT_PERIOD_MS);
        assertEquals(start[0], full[0], 1e-9);
    }
}
