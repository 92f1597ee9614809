package io.klink.workloads.late;

import java.util.Map;
import java.util.TreeMap;

/**
 * AION's predictive cleanup (seed aion-late-events-esteves.txt §3.4): "start with a conservatively large lateness
 * bound, and, after a representative history of observations is collected, adjust this bound at runtime for newly
 * created windows in a way that is estimated to cover a specified percentage of the events (e.g., 99%) within a
 * certain confidence interval".
 * <ul>
 *   <li>The conservative bound is {@code maxMs} ({@code --allowed-lateness}); no window keeps its state longer.
 *   <li>Observed: the age (watermark − (end − 1), ms) of every late event, accepted or dropped — arrivals past a
 *       window's bound are observed too. A window's ages join the history once the conservative bound passed it
 *       (complete observations: a younger window has not seen its late tail yet); ages at or past
 *       {@code maxMs} count as "beyond" at once. Ages are counted in {@link #CELLS} equal cells of [0, maxMs).
 *   <li>A new window's bound, once {@link #MIN_OBSERVED} ages are in the history: the upper edge of the cell
 *       holding the upper one-sided 95 % confidence bound of the {@code coverage} quantile, the order statistic
 *       of rank ⌈n·p + 1.645·√(n·p·(1 − p))⌉ (normal approximation of the binomial); {@code maxMs} if that rank
 *       falls beyond.
 * </ul>
 */
final class PredictiveCleanup {

    public static final int CELLS = 1000;
    public static final long MIN_OBSERVED = 100;
    private static final double Z95 = 1.645;

    private final double coverage;
    private final long maxMs;
    private final long[] history = new long[CELLS];
    private long beyond, observed;
    private final TreeMap<Long, long[]> pending = new TreeMap<>();

    /** {@code coverage} 0: off, every window keeps the fixed bound {@code maxMs}. */
    PredictiveCleanup(double coverage, long maxMs) {
        if (!(coverage == 0 || coverage > 0 && coverage < 1) || (coverage > 0 && maxMs <= 0)) {
            throw new IllegalArgumentException("predictive cleanup covers a fraction in (0, 1) (0: off) of the late "
                    + "events within a lateness > 0; got " + coverage + ", " + maxMs + " ms");
        }
        this.coverage = coverage;
        this.maxMs = maxMs;
    }

    boolean enabled() {
        return coverage > 0;
    }

    /** A late event of the window ending at {@code end} arrived at this age. */
    void observe(long end, long age) {
        if (!enabled()) {
            return;
        }
        if (age >= maxMs) {
            beyond++;
            observed++;
        } else {
            pending.computeIfAbsent(end, e -> new long[CELLS])[(int) (Math.max(0, age) * CELLS / maxMs)]++;
        }
    }

    /** The watermark moved: windows the conservative bound passed join the history. */
    void advance(long watermark) {
        Map<Long, long[]> complete = pending.headMap(watermark - maxMs + 1, true);  // end − 1 + maxMs ≤ watermark
        for (long[] ages : complete.values()) {
            for (int i = 0; i < CELLS; i++) {
                history[i] += ages[i];
                observed += ages[i];
            }
        }
        complete.clear();
    }

    /** The bound (ms) of a window created now. */
    long bound() {
        if (!enabled() || observed < MIN_OBSERVED) {
            return maxMs;
        }
        double n = observed;
        long rank = (long) Math.ceil(n * coverage + Z95 * Math.sqrt(n * coverage * (1 - coverage)));
        long seen = 0;
        for (int i = 0; i < CELLS; i++) {
            seen += history[i];
            if (seen >= rank) {
                return (i + 1) * maxMs / CELLS;
            }
        }
        return maxMs;
    }

    long observed() {
        return observed;
    }
}
