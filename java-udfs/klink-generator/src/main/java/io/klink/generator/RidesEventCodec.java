package io.klink.generator;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Ride-sharing trips for the AdCom aggregation (seed adcom-edbt21.txt §4.1: TLC ride data, Q1 sums passengers),
 * one CSV line per event: {@code region,driver,passengers,fare,event_time}. The trip itself follows the
 * {@link NytEventCodec} model (log-normal distance, the 2013 meter's fare over a 6-22 mph ride); the pick-up
 * region is drawn from a Zipf law over {@code regions} regions with exponent {@code skew} (0 = uniform; the
 * issue's s = 0.5…1.5), so that a few regions get most trips, the skew of §4.3. Passengers 1-6 with the
 * TLC's typical shares, the driver one of {@link NytEventCodec#MEDALLIONS}.
 *
 * <p>{@link #draw} takes one long (the trip's own seed), {@link #encode} derives the trip from it.
 */
public final class RidesEventCodec implements EventCodec {

    /** Cumulative shares of 1..6 passengers (most trips carry one). */
    private static final double[] PASSENGERS_CDF = {0.70, 0.85, 0.90, 0.93, 0.97, 1.0};

    private final Zipf regions;

    public RidesEventCodec(int regions, double skew) {
        if (regions <= 0 || !(skew >= 0) || Double.isInfinite(skew)) {
            throw new IllegalArgumentException("regions must be > 0 and the skew a finite number >= 0");
        }
        this.regions = new Zipf(regions, skew);
    }

    /** The index of the first entry of {@code cdf} at or above {@code u}. */
    static int inverse(double[] cdf, double u) {
        int low = 0, high = cdf.length - 1;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (cdf[mid] < u) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    public int regionOf(long packed) {
        return regions.index(new SplittableRandom(packed).nextDouble());
    }

    @Override
    public byte[] encode(long packed, long eventTimeMs) {
        SplittableRandom r = new SplittableRandom(packed);
        int region = regions.index(r.nextDouble());
        int driver = r.nextInt(NytEventCodec.MEDALLIONS);
        int passengers = 1 + inverse(PASSENGERS_CDF, r.nextDouble());
        double miles = Math.min(40, Math.max(0.1, Math.exp(0.75 + 0.75 * NytEventCodec.gaussian(r))));
        double mph = 6 + 16 * r.nextDouble();
        double seconds = miles / mph * 3600 + 60;
        double fare = 2.5 + 2.5 * miles + 0.5 * r.nextDouble() * seconds / 120;
        StringBuilder b = new StringBuilder(48).append('r').append(region).append(',').append(driver).append(',')
                .append(passengers).append(',');
        NytEventCodec.fixed(b, fare, 2).append(',');
        return b.append(eventTimeMs).toString().getBytes(StandardCharsets.US_ASCII);
    }
}
