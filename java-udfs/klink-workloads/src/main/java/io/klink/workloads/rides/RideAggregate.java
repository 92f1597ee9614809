package io.klink.workloads.rides;

import io.klink.metrics.Envelope;
import java.util.HashSet;
import java.util.Set;

/**
 * The ride query's user aggregate per region and window, and its partial (what the combiner sends before the
 * shuffle and the global window merges): seed adcom-edbt21.txt §3.3, {@code S.adcom(regionId, agg)}.
 *
 * <ul>
 *   <li>{@link #PASSENGERS} — distributive (§4.1's Q1: passengers summed, with the trip count and the highest
 *       fare): a partial is three numbers, however many trips it stands for.</li>
 *   <li>{@link #DRIVERS} — not distributive: distinct drivers. A partial must carry the set of drivers it saw,
 *       so pre-aggregation only removes repeats, and partials grow with the distinct values.</li>
 * </ul>
 * A raw trip is a partial of one (Envelope value = 1 trip), so the window merges partials whether or not a
 * combiner ran before it.
 */
public enum RideAggregate {
    PASSENGERS("passengers"),
    DRIVERS("drivers");

    public final String label;

    RideAggregate(String label) {
        this.label = label;
    }

    public static RideAggregate of(String label) {
        for (RideAggregate a : values()) {
            if (a.label.equals(label)) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown ride aggregate '" + label + "'; valid: passengers, drivers");
    }

    /** The fields of one trip as a partial of one. */
    public double[] tripFields(int driver, int passengers, double fare) {
        return this == PASSENGERS ? new double[] {passengers, fare} : new double[] {driver};
    }

    public Partial newPartial() {
        return new Partial(this);
    }

    /**
     * A region's RESULT of a window from its aggregates: value = {@code aggregate} (passengers summed, rounded,
     * or distinct drivers), fields = trips and it (and {@code maxFare} for {@link #PASSENGERS}).
     */
    public Envelope result(String key, long windowEnd, long trips, double aggregate, double maxFare) {
        Envelope r = Envelope.result(key, windowEnd, Math.round(aggregate));
        r.fields = this == PASSENGERS ? new double[] {trips, aggregate, maxFare} : new double[] {trips, aggregate};
        return r;
    }

    /** A partial aggregate: merges trips and other partials of the same region and window. */
    public static final class Partial {
        private final RideAggregate aggregate;
        private long trips;
        private double passengers;
        private double maxFare = Double.NEGATIVE_INFINITY;
        private final Set<Long> drivers = new HashSet<>();

        Partial(RideAggregate aggregate) {
            this.aggregate = aggregate;
        }

        /** Merges a trip or a partial (value = trips it stands for, fields as {@link #toEnvelope} writes them). */
        public void add(Envelope e) {
            trips += e.value;
            if (aggregate == PASSENGERS) {
                passengers += e.fields[0];
                maxFare = Math.max(maxFare, e.fields[1]);
            } else {
                for (double driver : e.fields) {
                    drivers.add((long) driver);
                }
            }
        }

        public long trips() {
            return trips;
        }

        /** The partial as a DATA envelope at {@code timestamp}: value = trips, fields as a trip's. */
        public Envelope toEnvelope(String key, long timestamp) {
            Envelope e = Envelope.data(key, timestamp, trips);
            if (aggregate == PASSENGERS) {
                e.fields = new double[] {passengers, maxFare};
            } else {
                e.fields = drivers.stream().sorted().mapToDouble(Long::doubleValue).toArray();
            }
            return e;
        }

        /** The window's RESULT: value = the aggregate (passengers, distinct drivers), fields = trips and it
         *  (and the highest fare for {@link #PASSENGERS}). */
        public Envelope toResult(String key, long windowEnd) {
            return aggregate.result(key, windowEnd, trips, aggregate == PASSENGERS ? passengers : drivers.size(),
                    maxFare);
        }
    }
}
