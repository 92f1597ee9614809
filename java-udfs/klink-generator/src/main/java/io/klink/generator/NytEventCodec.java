package io.klink.generator;

import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.SplittableRandom;

/**
 * Synthetic NYC taxi trips in the DEBS 2015 Grand Challenge schema, one CSV line per event:
 * {@code medallion,hack_license,pickup_datetime,dropoff_datetime,trip_time_in_secs,trip_distance,
 * pickup_longitude,pickup_latitude,dropoff_longitude,dropoff_latitude,payment_type,fare_amount,surcharge,
 * mta_tax,tip_amount,tolls_amount,total_amount,event_time} — the 17 DEBS columns plus the event time (ms,
 * the scheduled generation time; the trip's drop-off is that second).
 *
 * <p>{@link #draw} takes one long from the topic's stream (the trip's own seed); {@link #encode} derives
 * the trip from it: pick-ups in the NYC bounding box (70 % in Manhattan), log-normal distances (median
 * ≈ 2.1 mi), speeds 6-22 mph, fares from the 2013 meter (2.50 + 2.50/mi + 0.50/2 min stopped, approximated),
 * tips on card payments only, and {@link #INVALID_FRACTION} of rows with zero coordinates as in the real data.
 */
public final class NytEventCodec implements EventCodec {

    public static final int MEDALLIONS = 2000;
    public static final int LICENSES = 4000;
    public static final double INVALID_FRACTION = 0.02;
    private static final double METERS_PER_DEG_LAT = 111_320;
    private static final double METERS_PER_DEG_LON = 84_330; // at 40.75° N
    private static final DateTimeFormatter DATETIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final String[] medallions = hexIds(MEDALLIONS, 0x6d6564L);
    private final String[] licenses = hexIds(LICENSES, 0x6c6963L);

    @Override
    public byte[] encode(long packed, long eventTimeMs) {
        return line(packed, eventTimeMs).getBytes(StandardCharsets.US_ASCII);
    }

    /** The CSV line of the trip drawn as {@code packed}, dropped off at {@code eventTimeMs}. */
    public String line(long packed, long eventTimeMs) {
        SplittableRandom r = new SplittableRandom(packed);
        double miles = cents(Math.min(40, Math.max(0.1, Math.exp(0.75 + 0.75 * gaussian(r))))); // as printed
        double mph = 6 + 16 * r.nextDouble();
        long seconds = Math.round(miles / mph * 3600) + 60;
        double fare = cents(2.5 + 2.5 * miles + 0.5 * r.nextDouble() * seconds / 120);
        boolean card = r.nextDouble() < 0.6;
        double tip = card ? cents(fare * (0.1 + 0.15 * r.nextDouble())) : 0;
        double surcharge = pick(r, 0.3, 0.5, 0.1, 1.0);
        double tolls = r.nextDouble() < 0.05 ? 5.33 : 0;
        double[] trip = coordinates(r, miles);
        long dropoffS = Math.floorDiv(eventTimeMs, 1000);
        StringBuilder b = new StringBuilder(240)
                .append(medallions[r.nextInt(MEDALLIONS)]).append(',')
                .append(licenses[r.nextInt(LICENSES)]).append(',')
                .append(datetime(dropoffS - seconds)).append(',')
                .append(datetime(dropoffS)).append(',')
                .append(seconds).append(',');
        fixed(b, miles, 2).append(',');
        for (double c : trip) {
            fixed(b, c, 6).append(',');
        }
        b.append(card ? "CRD" : "CSH").append(',');
        for (double amount : new double[] {fare, surcharge, 0.5, tip, tolls, fare + surcharge + 0.5 + tip + tolls}) {
            fixed(b, amount, 2).append(',');
        }
        return b.append(eventTimeMs).toString();
    }

    /** pickup lon, lat, dropoff lon, lat; all zero for an invalid row. */
    private static double[] coordinates(SplittableRandom r, double miles) {
        boolean invalid = r.nextDouble() < INVALID_FRACTION;
        boolean manhattan = r.nextDouble() < 0.7;
        double lon = manhattan ? -74.02 + 0.09 * r.nextDouble() : -74.05 + 0.30 * r.nextDouble();
        double lat = manhattan ? 40.70 + 0.12 * r.nextDouble() : 40.58 + 0.32 * r.nextDouble();
        double angle = 2 * Math.PI * r.nextDouble();
        double meters = miles * 1609.344 * 0.75; // straight line shorter than the street route
        if (invalid) {
            return new double[4];
        }
        return new double[] {lon, lat, lon + meters * Math.cos(angle) / METERS_PER_DEG_LON,
                lat + meters * Math.sin(angle) / METERS_PER_DEG_LAT};
    }

    /** A standard normal draw (Box–Muller). */
    static double gaussian(SplittableRandom r) {
        double u = 1 - r.nextDouble(); // (0, 1]
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.nextDouble());
    }

    private static double pick(SplittableRandom r, double p1, double v1, double p2, double v2) {
        double u = r.nextDouble();
        return u < p1 ? v1 : u < p1 + p2 ? v2 : 0;
    }

    private static double cents(double amount) {
        return Math.round(amount * 100) / 100.0;
    }

    private static String datetime(long epochSecond) {
        return DATETIME.format(LocalDateTime.ofEpochSecond(epochSecond, 0, ZoneOffset.UTC));
    }

    /** Appends {@code v} with exactly {@code decimals} digits after the point (half-up). */
    static StringBuilder fixed(StringBuilder b, double v, int decimals) {
        long scale = (long) Math.pow(10, decimals);
        long units = Math.round(Math.abs(v) * scale);
        if (v < 0 && units != 0) {
            b.append('-');
        }
        String frac = Long.toString(units % scale);
        b.append(units / scale).append('.');
        b.append("0".repeat(decimals - frac.length())).append(frac);
        return b;
    }

    private static String[] hexIds(int n, long salt) {
        SplittableRandom r = new SplittableRandom(salt);
        String[] ids = new String[n];
        for (int i = 0; i < n; i++) {
            ids[i] = String.format("%016X%016X", r.nextLong(), r.nextLong());
        }
        return ids;
    }
}
