package io.klink.generator;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * kMeans points, one CSV line per event: {@code x,y,event_time}. Each point is drawn around one of
 * {@link #CENTRES} cluster centres with standard deviation {@link #SPREAD}; every centre circles its home
 * position (radius {@link #DRIFT_RADIUS}, one turn per {@link #DRIFT_PERIOD_MS} of event time), so the clusters
 * drift and each window sees them somewhere else. {@link #OUTLIER_FRACTION} of the points lie far outside the
 * [-100, 100]² plane, for the job's filter to drop.
 */
public final class KmeansEventCodec implements EventCodec {

    public static final int CENTRES = 5;
    public static final double SPREAD = 3.0;
    public static final double DRIFT_RADIUS = 10.0;
    public static final double DRIFT_PERIOD_MS = 120_000;
    public static final double OUTLIER_FRACTION = 0.02;
    private static final double[][] HOMES = {{-50, -50}, {-50, 50}, {50, -50}, {50, 50}, {0, 0}};

    @Override
    public byte[] encode(long packed, long eventTimeMs) {
        SplittableRandom r = new SplittableRandom(packed);
        double x, y;
        if (r.nextDouble() < OUTLIER_FRACTION) {
            x = 1000 + 1000 * r.nextDouble();
            y = -1000 - 1000 * r.nextDouble();
        } else {
            double[] centre = centre(r.nextInt(CENTRES), eventTimeMs);
            x = centre[0] + SPREAD * NytEventCodec.gaussian(r);
            y = centre[1] + SPREAD * NytEventCodec.gaussian(r);
        }
        return (round3(x) + "," + round3(y) + "," + eventTimeMs).getBytes(StandardCharsets.US_ASCII);
    }

    /** Where cluster {@code c}'s centre is at event time {@code t}. */
    public static double[] centre(int c, long t) {
        double angle = 2 * Math.PI * (t / DRIFT_PERIOD_MS + (double) c / CENTRES);
        return new double[] {HOMES[c][0] + DRIFT_RADIUS * Math.cos(angle), HOMES[c][1] + DRIFT_RADIUS * Math.sin(angle)};
    }

    private static double round3(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
