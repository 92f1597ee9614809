package io.klink.sampler;

import java.io.Serializable;

/**
 * A query's sampler: the algorithm ({@link Samplers#NAMES}), the sub-stream length f (a divisor of the window),
 * the window it feeds, the error target r_thr and confidence 1 − δ, the history m of sub-streams the
 * estimates use, the seed of its sampling decisions, and the {@link ValueModel} of what the window aggregates.
 * A sliding window's sub-streams must also divide its slide (checked by the workload), so every window is made
 * of whole sub-streams.
 */
public record SamplerConfig(String kind, long substreamMs, long windowMs, long windowOffsetMs, double error,
                            double confidence, int history, long seed, ValueModel valueModel) implements Serializable {

    /** A count-per-key window's sampler (YSB). */
    public SamplerConfig(String kind, long substreamMs, long windowMs, long windowOffsetMs, double error,
                         double confidence, int history, long seed) {
        this(kind, substreamMs, windowMs, windowOffsetMs, error, confidence, history, seed, ValueModel.keyCount());
    }

    public SamplerConfig {
        if (substreamMs <= 0 || windowMs % substreamMs != 0) {
            throw new IllegalArgumentException("the sub-stream length (" + substreamMs
                    + " ms) must divide the window (" + windowMs + " ms)");
        }
        if (!(error > 0 && error < 1) || !(confidence > 0 && confidence < 1) || history < 1) {
            throw new IllegalArgumentException("need 0 < error < 1, 0 < confidence < 1 and history >= 1");
        }
    }

    public int substreamsPerWindow() {
        return (int) (windowMs / substreamMs);
    }

    /** Eq. 4.4 for the window from the monitor's history, at error {@code error}. */
    double windowSampleSize(StreamMonitor monitor, double z, double error) {
        return SampleSizes.windowSampleSize(z, error, valueModel.relativeVariance(monitor.history()),
                windowSize(monitor));
    }

    StreamMonitor newMonitor() {
        return new StreamMonitor(substreamMs, windowOffsetMs, history);
    }

    /** Eq. 4.2: E[N_i] = f / E[G] from the monitor's history. */
    double substreamSize(StreamMonitor monitor) {
        return SampleSizes.substreamSize(substreamMs, monitor.meanGapMs());
    }

    /**
     * Eq. 4.2 summed over the window's k sub-streams and overestimated by two standard deviations (§4.1.2):
     * N^w = k·E[N_i] + 2·√k·σ(N_i), from the monitor's history.
     */
    double windowSize(StreamMonitor monitor) {
        int k = substreamsPerWindow();
        return k * substreamSize(monitor) + 2 * Math.sqrt(k) * monitor.sizeDeviation();
    }
}
