package io.klink.workloads.late;

import java.util.Arrays;

/**
 * The distribution of a window's late arrivals over its allowed lateness (seed aion-late-events-esteves.txt §3.4:
 * "based on the distribution of late arrivals"), on the unit interval: time u = t / T since the window's end, T the
 * allowed lateness, and F(u) the fraction of the N late events expected by then (F(0) = 0, F(1) = 1). F is
 * piecewise linear between {@code cells + 1} equally spaced points, so the staleness of any interval is exact
 * and continuous in its ends.
 */
public final class LateArrivals {

    private final double[] cdf;  // F at i / cells, i = 0..cells

    private LateArrivals(double[] cdf) {
        this.cdf = cdf;
    }

    /** From late events counted per equal cell of [0, T] (a histogram); all-zero counts mean uniform. */
    public static LateArrivals fromCounts(double[] counts) {
        if (counts.length == 0) {
            throw new IllegalArgumentException("a late-arrival histogram needs at least one cell");
        }
        double total = 0;
        for (double c : counts) {
            if (!(c >= 0) || Double.isInfinite(c)) {
                throw new IllegalArgumentException("late-arrival counts must be finite and >= 0, got "
                        + Arrays.toString(counts));
            }
            total += c;
        }
        double[] cdf = new double[counts.length + 1];
        for (int i = 0; i < counts.length; i++) {
            cdf[i + 1] = cdf[i] + (total > 0 ? counts[i] / total : 1.0 / counts.length);
        }
        cdf[counts.length] = 1;
        return new LateArrivals(cdf);
    }

    /** From a non-decreasing CDF sampled at i / cells (i = 0..cells), normalised to F(0) = 0, F(1) = 1. */
    public static LateArrivals fromCdf(double[] points) {
        if (points.length < 2) {
            throw new IllegalArgumentException("a late-arrival CDF needs at least two points");
        }
        double[] counts = new double[points.length - 1];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = points[i + 1] - points[i];
            if (counts[i] < -1e-12) {
                throw new IllegalArgumentException("a late-arrival CDF must not decrease (at point " + (i + 1) + ")");
            }
            counts[i] = Math.max(0, counts[i]);
        }
        return fromCounts(counts);
    }

    public static LateArrivals uniform() {
        return fromCounts(new double[] {1});
    }

    public int cells() {
        return cdf.length - 1;
    }

    /** F(u): the fraction of late events arrived by time u (u clamped to [0, 1]). */
    public double cdf(double u) {
        double x = Math.min(1, Math.max(0, u)) * cells();
        int i = Math.min((int) x, cells() - 1);
        return cdf[i] + (cdf[i + 1] - cdf[i]) * (x - i);
    }

    /** The first time by which a fraction p of the late events arrived (p clamped to [0, 1]). */
    public double quantile(double p) {
        double q = Math.min(1, Math.max(0, p));
        int i = Arrays.binarySearch(cdf, q);
        if (i >= 0) {
            while (i > 0 && cdf[i - 1] == q) {
                i--;
            }
            return (double) i / cells();
        }
        int hi = -i - 1;  // cdf[hi - 1] < q < cdf[hi]
        int lo = hi - 1;
        return (lo + (q - cdf[lo]) / (cdf[hi] - cdf[lo])) / cells();
    }

    /** §3.4: st = t·n / (T·N) between executions at a and b (fractions of T): (b − a)·(F(b) − F(a)). */
    public double staleness(double a, double b) {
        return (b - a) * (cdf(b) - cdf(a));
    }
}
