package io.klink.scheduler.policy;

/**
 * The paper's LR baseline for SWM ingestion estimation (§6.2.5): a least-squares line through the
 * last h SWM ingestion times against their epoch number, extrapolated one epoch ahead.
 *
 * <p>Interval (the paper does not say which range LR is scored against; our choice): the classical
 * regression prediction interval ŷ ± z_f · s · √(1 + 1/N + (x₀ − x̄)²/Sxx), with s² = SSE/(N − 2),
 * z_f the two-sided normal quantile of f (normal rather than Student-t so that it is comparable with
 * Klink's interval). With fewer than 3 points s is 0; with fewer than 2 the prediction is the deadline
 * passed in (no information). Ingestion times are centred on the oldest point before fitting, so that
 * epoch-ms magnitudes (≈1.7e12) do not cancel catastrophically. O(h) per prediction (once per SWM).
 */
public final class LinearRegressionEstimator {

    private final int capacity;
    private final long[] times;
    private final double z;
    private int size;
    private int next;

    /**
     * @param h number of past SWM ingestion times to fit (&gt;= 1)
     * @param f confidence of the interval, 0 &lt; f &lt; 1
     */
    public LinearRegressionEstimator(int h, double f) {
        if (h < 1) {
            throw new IllegalArgumentException("history h must be >= 1, got " + h);
        }
        this.capacity = h;
        this.times = new long[h];
        this.z = KlinkMath.zForConfidence(f);
    }

    /** An SWM was ingested at this wall-clock time (ms). */
    public void recordSwm(long ingestionMs) {
        times[next] = ingestionMs;
        next = (next + 1) % capacity;
        if (size < capacity) {
            size++;
        }
    }

    public int size() {
        return size;
    }

    /**
     * Predicts the next SWM's ingestion time.
     *
     * @param fallbackMs the prediction to return while fewer than 2 SWMs were seen (e.g. the deadline)
     */
    public SwmInterval predict(long fallbackMs) {
        if (size < 2) {
            return new SwmInterval(fallbackMs, 0.0, fallbackMs, fallbackMs);
        }
        int start = size == capacity ? next : 0;
        long origin = times[start];
        double n = size;
        double xBar = (n - 1) / 2.0;
        double yBar = 0.0;
        for (int i = 0; i < size; i++) {
            yBar += times[(start + i) % capacity] - origin;
        }
        yBar /= n;
        double sxx = 0.0;
        double sxy = 0.0;
        for (int i = 0; i < size; i++) {
            double dx = i - xBar;
            double dy = (times[(start + i) % capacity] - origin) - yBar;
            sxx += dx * dx;
            sxy += dx * dy;
        }
        double slope = sxy / sxx;
        double intercept = yBar - slope * xBar;
        double s = 0.0;
        if (size > 2) {
            double sse = 0.0;
            for (int i = 0; i < size; i++) {
                double e = (times[(start + i) % capacity] - origin) - (intercept + slope * i);
                sse += e * e;
            }
            s = Math.sqrt(sse / (n - 2));
        }
        double x0 = n;
        double predicted = origin + intercept + slope * x0;
        double sePred = s * Math.sqrt(1.0 + 1.0 / n + (x0 - xBar) * (x0 - xBar) / sxx);
        double half = z * sePred;
        return new SwmInterval(predicted, sePred, predicted - half, predicted + half);
    }
}
