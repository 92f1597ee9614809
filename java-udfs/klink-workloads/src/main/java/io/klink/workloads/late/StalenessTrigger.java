package io.klink.workloads.late;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * AION's staleness trigger (seed aion-late-events-esteves.txt §3.4) and the two baselines of §5 Q4 / Fig. 9.
 *
 * <p>Staleness between consecutive executions is st = t·n / (T·N): t and n the time and the late events since the
 * previous execution, T the allowed lateness and N the late events expected in it. Times here are fractions of T
 * since the window's end (the on-time firing, not counted, is at 0), over a {@link LateArrivals} distribution. A
 * schedule of k executions is e_1 &lt; … &lt; e_k with e_k = 1: the last one is the window's final result before
 * cleanup, so k executions make k intervals and each interval's staleness counts.
 * <ul>
 *   <li>{@link #greedy}: from the previous execution, the next one goes to the latest time the bound still holds
 *       (the paper: "place an execution at the time that violates the bound; we iteratively repeat this process
 *       until we reach maximum allowed lateness"). Since st(a, b) grows with b and shrinks with a, this uses the
 *       fewest executions any schedule needs for the bound.
 *   <li>{@link #balanced}: the paper's optimisation for a given count: start where late arrivals are dense (the
 *       equal-mass quantiles i/k: denser stretches get more executions), then adjust the executions in order of
 *       time, each moved along the negative gradient of the larger of its two neighbouring intervals' staleness
 *       until both are equal (an exact line search); repeat until the staleness values' standard deviation is
 *       ~0 (relative to their mean) or a maximum of sweeps.
 *   <li>{@link #plan}: the trigger: the greedy count for the bound, balanced (the greedy schedule if balancing
 *       stopped at its sweep limit with a larger maximum).
 *   <li>{@link #deltaT} (every T/k) and {@link #deltaEv} (every N/k expected events): Fig. 9's baselines.
 * </ul>
 */
public final class StalenessTrigger {

    /** Balancing stops when std / mean of the intervals' staleness is below this. */
    public static final double BALANCED = 1e-4;
    public static final int MAX_SWEEPS = 20_000;
    /** Staleness within a bound's relative rounding error counts as within it (1/k² is not exact in doubles). */
    public static final double TOLERANCE = 1e-9;
    private static final int BISECTIONS = 60;

    /** Execution times (fractions of T, the last 1) and the balancing sweeps it took (0 if none). */
    public record Schedule(double[] times, int sweeps) {
        public int executions() {
            return times.length;
        }
    }

    private StalenessTrigger() {}

    private static void checkBound(double bound) {
        if (!(bound > 0 && bound <= 1)) {
            throw new IllegalArgumentException("a staleness bound is a fraction in (0, 1], got " + bound);
        }
    }

    private static void checkCount(int k) {
        if (k < 1) {
            throw new IllegalArgumentException("a schedule needs at least one execution, got " + k);
        }
    }

    public static boolean within(double staleness, double bound) {
        return staleness <= bound * (1 + TOLERANCE);
    }

    /** The staleness of each interval (e_{i-1}, e_i], e_0 = 0. */
    public static double[] stalenessValues(LateArrivals f, double[] times) {
        double[] st = new double[times.length];
        double previous = 0;
        for (int i = 0; i < times.length; i++) {
            st[i] = f.staleness(previous, times[i]);
            previous = times[i];
        }
        return st;
    }

    public static double maxStaleness(LateArrivals f, double[] times) {
        return Arrays.stream(stalenessValues(f, times)).max().orElse(0);
    }

    /** The fewest executions keeping every interval's staleness within the bound, each as late as it can be. */
    public static Schedule greedy(LateArrivals f, double bound) {
        checkBound(bound);
        List<Double> times = new ArrayList<>();
        double a = 0;
        while (!within(f.staleness(a, 1), bound)) {
            double from = a;
            a = solve(x -> f.staleness(from, x) - bound, a, 1);
            if (a <= from) {
                throw new IllegalStateException("the staleness bound " + bound + " is below the time resolution");
            }
            times.add(a);
        }
        times.add(1.0);
        return new Schedule(times.stream().mapToDouble(Double::doubleValue).toArray(), 0);
    }

    /** k executions balanced by the paper's iterative optimisation (class comment). */
    public static Schedule balanced(LateArrivals f, int k) {
        checkCount(k);
        double[] e = deltaEv(f, k);
        int sweeps = 0;
        while (sweeps < MAX_SWEEPS && !isBalanced(stalenessValues(f, e))) {
            for (int i = 0; i + 1 < k; i++) {
                double left = i == 0 ? 0 : e[i - 1], right = e[i + 1];
                e[i] = solve(x -> f.staleness(left, x) - f.staleness(x, right), left, right);
            }
            sweeps++;
        }
        return new Schedule(e, sweeps);
    }

    /** AION's trigger for a bound: the greedy count, balanced; the greedy schedule if balancing did worse. */
    public static Schedule plan(LateArrivals f, double bound) {
        Schedule greedy = greedy(f, bound);
        Schedule balanced = balanced(f, greedy.executions());
        return maxStaleness(f, balanced.times()) <= maxStaleness(f, greedy.times()) ? balanced : greedy;
    }

    /** Δt: every T/k. */
    public static double[] deltaT(int k) {
        checkCount(k);
        double[] e = new double[k];
        for (int i = 0; i < k; i++) {
            e[i] = (i + 1.0) / k;
        }
        e[k - 1] = 1;
        return e;
    }

    /** Δev: each time another N/k of the expected late events arrived; the last at T. */
    public static double[] deltaEv(LateArrivals f, int k) {
        checkCount(k);
        double[] e = new double[k];
        for (int i = 0; i + 1 < k; i++) {
            e[i] = f.quantile((i + 1.0) / k);
        }
        e[k - 1] = 1;
        return e;
    }

    private static boolean isBalanced(double[] st) {
        double mean = Arrays.stream(st).average().orElse(0);
        if (mean == 0) {
            return true;
        }
        double var = Arrays.stream(st).map(s -> (s - mean) * (s - mean)).average().orElse(0);
        return Math.sqrt(var) / mean < BALANCED;
    }

    /** The largest x in [lo, hi] with g(x) <= 0, for g non-decreasing with g(lo) <= 0 (bisection). */
    private static double solve(java.util.function.DoubleUnaryOperator g, double lo, double hi) {
        if (g.applyAsDouble(hi) <= 0) {
            return hi;
        }
        for (int i = 0; i < BISECTIONS; i++) {
            double mid = (lo + hi) / 2;
            if (g.applyAsDouble(mid) <= 0) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
