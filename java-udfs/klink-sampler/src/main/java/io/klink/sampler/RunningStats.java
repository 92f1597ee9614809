package io.klink.sampler;

/** Running count, mean and variance (Welford): statistics without keeping the values. */
public final class RunningStats {

    private long count;
    private double mean;
    private double squaredDeviations;

    public void add(double value) {
        count++;
        double delta = value - mean;
        mean += delta / count;
        squaredDeviations += delta * (value - mean);
    }

    public long count() {
        return count;
    }

    public double mean() {
        return mean;
    }

    /** Population variance; 0 for fewer than two values. */
    public double variance() {
        return count < 2 ? 0.0 : squaredDeviations / count;
    }

    public double standardDeviation() {
        return Math.sqrt(variance());
    }

    /** The statistics of every value the parts saw, as if one had seen them all (Chan et al.'s merge). */
    public static RunningStats pooled(Iterable<RunningStats> parts) {
        RunningStats all = new RunningStats();
        for (RunningStats part : parts) {
            if (part.count == 0) {
                continue;
            }
            long count = all.count + part.count;
            double delta = part.mean - all.mean;
            all.squaredDeviations += part.squaredDeviations + delta * delta * all.count * part.count / count;
            all.mean += delta * part.count / count;
            all.count = count;
        }
        return all;
    }
}
