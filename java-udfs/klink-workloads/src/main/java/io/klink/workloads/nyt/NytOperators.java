package io.klink.workloads.nyt;

import io.klink.metrics.Envelope;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * The stateless chain of an NYT query: the Kafka value (a DEBS 2015 CSV line + event time) is parsed,
 * invalid trips are dropped, the pick-up mapped to its 500 m grid cell (the key) and fields derived.
 * Instrumentation envelopes pass every step untouched.
 */
public final class NytOperators {

    /** DEBS 2015 columns used here (0-based), plus the event time appended by klink-generator. */
    static final int TRIP_SECS = 4, DISTANCE = 5, PICKUP_LON = 6, PICKUP_LAT = 7, FARE = 11, TOTAL = 16;
    public static final int COLUMNS = 18;
    /** Parsed fields (Envelope.fields) after {@link Parse}. */
    public static final int F_LON = 0, F_LAT = 1, F_DISTANCE = 2, F_FARE = 3, F_SECS = 4, F_TOTAL = 5;
    /** Derived fields after {@link Derive}: what the window averages, in this order. */
    public static final int A_FARE = 0, A_DISTANCE = 1, A_SPEED = 2, AVERAGED = 3;

    private NytOperators() {}

    /** CSV line -> numeric fields; a malformed line keeps {@code fields == null} (dropped by {@link Validate}). */
    public static final class Parse implements MapFunction<Envelope, Envelope> {
        @Override
        public Envelope map(Envelope e) {
            if (e.isData()) {
                e.fields = parse(e.key);
                e.key = null;
            }
            return e;
        }

        static double[] parse(String line) {
            String[] c = line.split(",", -1);
            if (c.length != COLUMNS) {
                return null;
            }
            try {
                return new double[] {Double.parseDouble(c[PICKUP_LON]), Double.parseDouble(c[PICKUP_LAT]),
                        Double.parseDouble(c[DISTANCE]), Double.parseDouble(c[FARE]), Double.parseDouble(c[TRIP_SECS]),
                        Double.parseDouble(c[TOTAL])};
            } catch (NumberFormatException ex) {
                return null;
            }
        }
    }

    /** Drops malformed trips, pick-ups outside the grid, and non-positive distance, fare or duration. */
    public static final class Validate implements FilterFunction<Envelope> {
        @Override
        public boolean filter(Envelope e) {
            if (!e.isData()) {
                return true;
            }
            double[] f = e.fields;
            return f != null && NytGrid.contains(f[F_LON], f[F_LAT]) && f[F_DISTANCE] > 0 && f[F_FARE] > 0
                    && f[F_SECS] > 0 && f[F_TOTAL] >= f[F_FARE];
        }
    }

    /** Keys the trip by its pick-up cell (DEBS 2015 500 m grid). */
    public static final class Cell implements MapFunction<Envelope, Envelope> {
        @Override
        public Envelope map(Envelope e) {
            if (e.isData()) {
                e.key = NytGrid.cell(e.fields[F_LON], e.fields[F_LAT]);
            }
            return e;
        }
    }

    /** Derives what the window averages: fare, distance, speed (mph). */
    public static final class Derive implements MapFunction<Envelope, Envelope> {
        @Override
        public Envelope map(Envelope e) {
            if (e.isData()) {
                double[] f = e.fields;
                e.fields = new double[] {f[F_FARE], f[F_DISTANCE], f[F_DISTANCE] / (f[F_SECS] / 3600)};
            }
            return e;
        }
    }
}
