package io.klink.workloads.lrb;

import io.klink.metrics.Envelope;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * The per-record operators of an LRB query. Position reports ({@code 0,time,vid,speed,xway,lane,dir,seg,pos,
 * event_time}) are parsed once and fan out to three sub-streams that the toll window joins
 * ({@link TollWindows}): segment statistics (from the sliding window, via {@link StatsRows}), accident
 * changes ({@link Accidents}) and segment crossings ({@link Crossings}). Only the statistics path carries the
 * instrumentation (markers, watermark probes), so each reaches the output once.
 *
 * <p>Parallelism 1 per query: the per-car maps are plain fields (like the windows, not checkpointed).
 */
public final class LrbOperators {

    /** Parsed fields (Envelope.fields) after {@link Parse}; the stats window averages the first (speed). */
    public static final int F_SPEED = 0, F_VID = 1, F_XWAY = 2, F_LANE = 3, F_DIR = 4, F_SEG = 5, F_POS = 6;
    /** Toll window inputs, by Envelope.value. */
    public static final long POSITION = 0, STATS = 1, ACCIDENT = 2, CLEARED = 3;
    /** STATS fields: cars (reports) in the window and their average speed. */
    public static final int S_CARS = 0, S_AVG_SPEED = 1;
    public static final int EXIT_LANE = 4;
    static final int SEGMENTS = 100;

    private LrbOperators() {}

    /** Segment key of the stats window and the toll results: "xway.dir.seg". */
    public static String segmentKey(int xway, int dir, int seg) {
        return xway + "." + dir + "." + seg;
    }

    /** One int per (xway, dir, seg), for cheap look-ups of neighbouring segments. */
    static int segmentId(int xway, int dir, int seg) {
        return (xway * 2 + dir) * SEGMENTS + seg;
    }

    /** CSV line -> fields, keyed by segment; a malformed report is dropped. */
    public static final class Parse implements FlatMapFunction<Envelope, Envelope> {
        @Override
        public void flatMap(Envelope e, Collector<Envelope> out) {
            if (e.isData()) {
                e.fields = parse(e.key);
                if (e.fields == null) {
                    return;
                }
                e.key = segmentKey((int) e.fields[F_XWAY], (int) e.fields[F_DIR], (int) e.fields[F_SEG]);
            }
            out.collect(e);
        }

        /** A report's fields ({@link #F_SPEED} …), or null if it is malformed. */
        public static double[] parse(String line) {
            String[] c = line.split(",", -1);
            if (c.length != 10 || !c[0].equals("0")) {
                return null;
            }
            try {
                return new double[] {Integer.parseInt(c[3]), Integer.parseInt(c[2]), Integer.parseInt(c[4]),
                        Integer.parseInt(c[5]), Integer.parseInt(c[6]), Integer.parseInt(c[7]), Integer.parseInt(c[8])};
            } catch (NumberFormatException ex) {
                return null;
            }
        }
    }

    /** The stats window's per-segment RESULTs become STATS records of the toll join; its FIRINGs are not the query's. */
    public static final class StatsRows implements FlatMapFunction<Envelope, Envelope> {
        @Override
        public void flatMap(Envelope e, Collector<Envelope> out) {
            switch (e.kind) {
                case Envelope.RESULT -> {
                    Envelope stats = Envelope.data(e.key, e.timestamp, STATS);
                    stats.fields = new double[] {e.value, e.fields[0]};
                    out.collect(stats);
                }
                case Envelope.FIRING -> { }
                default -> out.collect(e);  // markers, probes
            }
        }
    }

    /**
     * LR accident detection: a car is stopped when it reported speed 0 at the same position (expressway,
     * direction, lane, feet) 4 times in a row; two or more stopped cars at one position are an accident.
     * Emits ACCIDENT when a position gets its second stopped car and CLEARED when it falls below two.
     */
    public static final class Accidents implements FlatMapFunction<Envelope, Envelope> {
        static final int STOPPED_REPORTS = 4;
        private transient Map<Integer, long[]> carPlaceAndRun;  // stopped car -> {position, reports stopped there}
        private transient Map<Long, Set<Integer>> stoppedCars;  // position -> stopped cars

        @Override
        public void flatMap(Envelope e, Collector<Envelope> out) {
            if (!e.isData()) {
                return;
            }
            if (carPlaceAndRun == null) {
                carPlaceAndRun = new HashMap<>();
                stoppedCars = new HashMap<>();
            }
            double[] f = e.fields;
            int vid = (int) f[F_VID];
            if (f[F_SPEED] != 0 || f[F_LANE] == EXIT_LANE) {  // only stopped cars are remembered
                long[] was = carPlaceAndRun.remove(vid);
                if (was != null) {
                    leave(was[0], vid, e, out);
                }
                return;
            }
            long place = ((((long) f[F_XWAY] * 2 + (long) f[F_DIR]) * 8 + (long) f[F_LANE]) << 20) | (long) f[F_POS];
            long[] prev = carPlaceAndRun.get(vid);
            if (prev != null && prev[0] != place) {
                leave(prev[0], vid, e, out);
            }
            long run = prev != null && prev[0] == place ? prev[1] + 1 : 1;
            carPlaceAndRun.put(vid, new long[] {place, run});
            if (run >= STOPPED_REPORTS) {
                Set<Integer> cars = stoppedCars.computeIfAbsent(place, p -> new HashSet<>());
                if (cars.add(vid) && cars.size() == 2) {
                    out.collect(change(ACCIDENT, e.timestamp, (int) f[F_XWAY], (int) f[F_DIR], (int) f[F_SEG]));
                }
            }
        }

        private void leave(long place, int vid, Envelope e, Collector<Envelope> out) {
            Set<Integer> cars = stoppedCars.get(place);
            if (cars == null || !cars.remove(vid)) {
                return;
            }
            if (cars.size() == 1) {
                long road = place >>> 20;
                out.collect(change(CLEARED, e.timestamp, (int) (road / 16), (int) (road / 8 % 2),
                        (int) ((place & 0xFFFFF) / 5280)));
            } else if (cars.isEmpty()) {
                stoppedCars.remove(place);
            }
        }

        /** An ACCIDENT/CLEARED record of a segment, fields at the report's indices ({@link #F_XWAY}, ...). */
        private static Envelope change(long kind, long timestamp, int xway, int dir, int seg) {
            Envelope c = Envelope.data(segmentKey(xway, dir, seg), timestamp, kind);
            c.fields = new double[F_POS + 1];
            c.fields[F_XWAY] = xway;
            c.fields[F_DIR] = dir;
            c.fields[F_SEG] = seg;
            return c;
        }
    }

    /**
     * The reports the toll operator charges: a car's first report in a segment (LR notifies a toll when a car
     * crosses into a new segment), not in the exit lane. Fields kept ({@link #F_VID}, {@link #F_XWAY}, ...).
     */
    public static final class Crossings implements FlatMapFunction<Envelope, Envelope> {
        private transient Map<Integer, Integer> segmentOfCar;

        @Override
        public void flatMap(Envelope e, Collector<Envelope> out) {
            if (!e.isData()) {
                return;
            }
            if (segmentOfCar == null) {
                segmentOfCar = new HashMap<>();
            }
            double[] f = e.fields;
            int vid = (int) f[F_VID];
            if (f[F_LANE] == EXIT_LANE) {
                segmentOfCar.remove(vid);
                return;
            }
            Integer segment = segmentId((int) f[F_XWAY], (int) f[F_DIR], (int) f[F_SEG]);
            if (!segment.equals(segmentOfCar.put(vid, segment))) {
                e.value = POSITION;
                out.collect(e);
            }
        }
    }
}
