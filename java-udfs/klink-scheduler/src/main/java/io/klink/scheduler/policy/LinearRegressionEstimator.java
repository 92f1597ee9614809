package io.klink.scheduler.policy;

import java.util.Arrays;

/**
 * The paper's LR baseline for SWM ingestion estimation (§6.2.5, Fig. 9c: "a simple linear regression
 * technique"; the paper and the thesis §3.5 name no inputs): a least-squares line through the
 * (deadline, SWM ingestion time) pairs observed in the last h epochs, evaluated at the next deadline.
 *
 * <p>Same history as Klink's {@link KlinkEstimator}: the policy feeds both at the same epoch boundary
 * ({@link #addEpoch} exactly when {@link EpochHistory#closeEpoch} pushed an epoch), so both look back
 * over the same h epochs. An epoch whose SWM crossing was not observed holds a slot without a point,
 * where Klink's history still has the epoch's delay samples. Regressing on the deadline rather than on
 * a point's position keeps such gaps, and watermark jumps over several windows, from bending the line.
 *
 * <p>Interval (the paper does not say which range LR is scored against; our choice): the classical
 * regression prediction interval ŷ ± z_f · s · √(1 + 1/N + (x₀ − x̄)²/Sxx), with s² = SSE/(N − 2),
 * z_f the two-sided normal quantile of f (normal rather than Student-t so that it is comparable with
 * Klink's interval). With fewer than {@link #MIN_POINTS} points s is 0 (see {@link #hasHistory}); with
 * fewer than 2 the prediction is the deadline itself. Times are centred on the oldest point before
 * fitting, so that epoch-ms magnitudes (≈1.7e12) do not cancel catastrophically. O(h) per prediction.
 */
public final class LinearRegressionEstimator {

    /** Points needed for a residual spread, i.e. an interval wider than zero. */
    public static final int MIN_POINTS = 3;

    private final int capacity;
    private final long[] deadlines;
    private final long[] times;
    private final double z;
    private int epochs;
    private int next;

    /**
     * @param h epochs of history (&gt;= 1)
     * @param f confidence of the interval, 0 &lt; f &lt; 1
     */
    public LinearRegressionEstimator(int h, double f) {
        if (h < 1) {
            throw new IllegalArgumentException("history h must be >= 1, got " + h);
        }
        this.capacity = h;
        this.deadlines = new long[h];
        this.times = new long[h];
        this.z = KlinkMath.zForConfidence(f);
    }

    /**
     * An epoch ended with the SWM of {@code deadlineMs}, ingested at {@code ingestionMs} (wall ms) or
     * {@link EstimatorRecord#UNKNOWN} if its crossing was not observed; the oldest epoch beyond h is dropped.
     */
    public void addEpoch(long deadlineMs, long ingestionMs) {
        deadlines[next] = deadlineMs;
        times[next] = ingestionMs;
        next = (next + 1) % capacity;
        epochs = Math.min(epochs + 1, capacity);
    }

    /** Epochs held (≤ h), with or without a point. */
    public int epochs() {
        return epochs;
    }

    /** Observed (deadline, ingestion time) points among the held epochs. */
    public int points() {
        int n = 0;
        for (int i = 0; i < epochs; i++) {
            if (times[i] != EstimatorRecord.UNKNOWN) {
                n++;
            }
        }
        return n;
    }

    /** Enough points for an interval of non-zero width. */
    public boolean hasHistory() {
        return points() >= MIN_POINTS;
    }

    /** Predicts the ingestion time of the SWM of the window with deadline {@code nextDeadlineMs}. */
    public SwmInterval predict(long nextDeadlineMs) {
        int n = points();
        if (n < 2) {
            return new SwmInterval(nextDeadlineMs, 0.0, nextDeadlineMs, nextDeadlineMs);
        }
        double[] x = new double[n];
        double[] y = new double[n];
        long xOrigin = 0;
        long yOrigin = 0;
        int k = 0;
        for (int i = 0; i < epochs; i++) {
            int slot = (next - epochs + i + capacity) % capacity; // oldest first
            if (times[slot] == EstimatorRecord.UNKNOWN) {
                continue;
            }
            if (k == 0) {
                xOrigin = deadlines[slot];
                yOrigin = times[slot];
            }
            x[k] = deadlines[slot] - xOrigin;
            y[k] = times[slot] - yOrigin;
            k++;
        }
        return fit(x, y, nextDeadlineMs - xOrigin, yOrigin);
    }

    /** Least squares of y on x, the prediction at x0 and its interval, shifted back by yOrigin. */
    private SwmInterval fit(double[] x, double[] y, double x0, long yOrigin) {
        int n = x.length;
        double xBar = Arrays.stream(x).average().orElseThrow();
        double yBar = Arrays.stream(y).average().orElseThrow();
        double sxx = 0.0;
        double sxy = 0.0;
        for (int i = 0; i < n; i++) {
            sxx += (x[i] - xBar) * (x[i] - xBar);
            sxy += (x[i] - xBar) * (y[i] - yBar);
        }
        double slope = sxx > 0.0 ? sxy / sxx : 0.0; // equal deadlines: no trend to fit
        double intercept = yBar - slope * xBar;
        double s = 0.0;
        if (n >= MIN_POINTS) {
            double sse = 0.0;
            for (int i = 0; i < n; i++) {
                double e = y[i] - (intercept + slope * x[i]);
                sse += e * e;
            }
            s = Math.sqrt(sse / (n - 2));
        }
        double leverage = sxx > 0.0 ? (x0 - xBar) * (x0 - xBar) / sxx : 0.0;
        double sePred = s * Math.sqrt(1.0 + 1.0 / n + leverage);
        double predicted = yOrigin + intercept + slope * x0;
        return new SwmInterval(predicted, sePred, predicted - z * sePred, predicted + z * sePred);
    }
}
