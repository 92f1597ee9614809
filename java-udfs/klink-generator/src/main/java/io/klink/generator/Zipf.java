package io.klink.generator;

/**
 * A Zipf law over the indices 0..n-1: P(index k) ∝ 1 / (k + 1)^s (s = 0: uniform). {@link #index} inverts its
 * cumulative table, starting from a guide table (one entry per index: the first index whose cumulative share
 * reaches it), so a draw takes O(1) steps on average and gives what a binary search would.
 */
public final class Zipf {

    private final double[] cdf;
    private final int[] guide;

    public Zipf(int n, double s) {
        if (n <= 0 || !(s >= 0) || Double.isInfinite(s)) {
            throw new IllegalArgumentException("a Zipf law needs n > 0 and a finite exponent >= 0");
        }
        cdf = cdf(n, s);
        guide = new int[n];
        for (int j = 0, k = 0; j < n; j++) {
            while (cdf[k] < (double) j / n) {
                k++;
            }
            guide[j] = k;
        }
    }

    public int size() {
        return cdf.length;
    }

    /** P(index k), the k-th share. */
    public double probability(int k) {
        return k == 0 ? cdf[0] : cdf[k] - cdf[k - 1];
    }

    /** The first index whose cumulative share is at or above {@code u} in [0, 1). */
    public int index(double u) {
        int k = guide[Math.min(cdf.length - 1, (int) (u * cdf.length))];
        while (cdf[k] < u) {
            k++;
        }
        return k;
    }

    /** P(k) ∝ 1 / k^s, k = 1..n, as a cumulative table (the last entry exactly 1). */
    static double[] cdf(int n, double s) {
        double[] cdf = new double[n];
        double total = 0;
        for (int k = 1; k <= n; k++) {
            total += Math.pow(k, -s);
            cdf[k - 1] = total;
        }
        for (int k = 0; k < n; k++) {
            cdf[k] /= total;
        }
        cdf[n - 1] = 1.0;
        return cdf;
    }
}
