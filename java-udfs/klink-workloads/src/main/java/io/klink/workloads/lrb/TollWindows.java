package io.klink.workloads.lrb;

import static io.klink.workloads.lrb.LrbOperators.F_DIR;
import static io.klink.workloads.lrb.LrbOperators.F_SEG;
import static io.klink.workloads.lrb.LrbOperators.F_XWAY;

import io.klink.metrics.Envelope;
import io.klink.metrics.TumblingWindows;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The last window of an LRB query: tumbling event-time windows that join the three sub-streams — segment
 * statistics (STATS), accident changes (ACCIDENT/CLEARED) and segment crossings (POSITION) — and charge the
 * Linear Road toll for every crossing.
 *
 * <p>When window {@code [s, s + size)} fires: the statistics in force are those of the latest statistics
 * window ending at or before {@code s} (the statistics window slides by a multiple of this window, aligned
 * so each slide's statistics arrive at the start of a toll window); the accident changes of the window are
 * applied; then each crossing into segment {@code seg} of (xway, dir) pays
 * {@code 2 (cars - minCars)^2} if the segment's average speed is below 40 mph, it had more than
 * {@code minCars} cars, and no accident is active in {@code seg} or the 4 segments downstream, else 0.
 * Output per segment with crossings: a RESULT (value = tolled cars; fields {@link #R_TOLLS}, {@link
 * #R_CROSSINGS}, {@link #R_ACCIDENT_AHEAD}), then the FIRING and the held markers.
 */
public final class TollWindows extends TumblingWindows<List<Envelope>> {

    public static final int R_TOLLS = 0, R_CROSSINGS = 1, R_ACCIDENT_AHEAD = 2;
    private static final int TOLLED = 3;
    public static final int MAX_LAV_MPH = 40;
    public static final int ACCIDENT_REACH_SEGMENTS = 4;

    private final long minCars;
    /** statistics window end -> segment key -> {cars, average speed} */
    private final TreeMap<Long, Map<String, double[]>> pendingStats = new TreeMap<>();
    private Map<String, double[]> stats = Map.of();
    /** segment id -> accident sites active in it */
    private final Map<Integer, Integer> accidents = new HashMap<>();

    public TollWindows(long sizeMs, long offsetMs, long minCars) {
        super(sizeMs, offsetMs);
        this.minCars = minCars;
    }

    /** A window holds its POSITION and ACCIDENT/CLEARED records; STATS only mark it as non-empty. */
    @Override
    protected List<Envelope> newWindow() {
        return new ArrayList<>();
    }

    @Override
    protected void addTo(List<Envelope> window, Envelope event) {
        if (event.value == LrbOperators.STATS) {
            pendingStats.computeIfAbsent(event.timestamp, t -> new HashMap<>()).put(event.key, event.fields);
        } else {
            window.add(event);
        }
    }

    @Override
    protected Fired emitResults(List<Envelope> records, long end, List<Envelope> out) {
        long start = windowStart(end);
        Map.Entry<Long, Map<String, double[]>> latest = pendingStats.floorEntry(start);
        if (latest != null) {
            stats = latest.getValue();
            pendingStats.headMap(start, true).clear();
        }
        records.sort(Comparator.comparingLong(e -> e.timestamp));
        for (Envelope e : records) {
            if (e.value == LrbOperators.ACCIDENT || e.value == LrbOperators.CLEARED) {
                accidents.merge(segmentId(e), e.value == LrbOperators.ACCIDENT ? 1 : -1, Integer::sum);
                accidents.remove(segmentId(e), 0);
            }
        }
        Map<String, double[]> bySegment = new HashMap<>();
        long crossings = 0;
        for (Envelope e : records) {
            if (e.value != LrbOperators.POSITION) {
                continue;
            }
            crossings++;
            boolean accidentAhead = accidentAhead((int) e.fields[F_XWAY], (int) e.fields[F_DIR], (int) e.fields[F_SEG]);
            long toll = accidentAhead ? 0 : toll(stats.get(e.key));
            double[] acc = bySegment.computeIfAbsent(e.key, k -> new double[TOLLED + 1]);
            acc[R_TOLLS] += toll;
            acc[R_CROSSINGS]++;
            acc[R_ACCIDENT_AHEAD] = accidentAhead ? 1 : 0;
            acc[TOLLED] += toll > 0 ? 1 : 0;
        }
        for (Map.Entry<String, double[]> entry : bySegment.entrySet()) {
            double[] acc = entry.getValue();
            Envelope result = Envelope.result(entry.getKey(), end, (long) acc[TOLLED]);
            result.fields = Arrays.copyOf(acc, TOLLED);
            out.add(result);
        }
        return new Fired(bySegment.size(), crossings);
    }

    /** LR toll for a crossing into a segment with these statistics (null: no car there in the statistics window). */
    long toll(double[] segmentStats) {
        if (segmentStats == null) {
            return 0;
        }
        long cars = (long) segmentStats[LrbOperators.S_CARS];
        boolean congested = segmentStats[LrbOperators.S_AVG_SPEED] < MAX_LAV_MPH && cars > minCars;
        return congested ? 2 * (cars - minCars) * (cars - minCars) : 0;
    }

    private boolean accidentAhead(int xway, int dir, int seg) {
        for (int i = 0; i <= ACCIDENT_REACH_SEGMENTS; i++) {
            int s = dir == 0 ? seg + i : seg - i;  // downstream: eastbound (0) towards higher segments
            if (s >= 0 && s < LrbOperators.SEGMENTS && accidents.containsKey(LrbOperators.segmentId(xway, dir, s))) {
                return true;
            }
        }
        return false;
    }

    private static int segmentId(Envelope e) {
        return LrbOperators.segmentId((int) e.fields[F_XWAY], (int) e.fields[F_DIR], (int) e.fields[F_SEG]);
    }
}
