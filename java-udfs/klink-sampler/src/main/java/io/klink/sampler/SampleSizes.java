package io.klink.sampler;

import org.apache.commons.math3.distribution.NormalDistribution;

/** Aion's estimators, thesis Ch. 4 (Eq. 4.2, 4.4, 4.7, 4.8); all times in ms. */
public final class SampleSizes {

    private static final NormalDistribution STANDARD_NORMAL = new NormalDistribution(0, 1);

    private SampleSizes() {}

    /** z_{δ/2}: the two-sided standard normal quantile of the confidence 1 − δ (0.95 → 1.96). */
    public static double z(double confidence) {
        if (!(confidence > 0 && confidence < 1)) {
            throw new IllegalArgumentException("confidence must be in (0, 1), got " + confidence);
        }
        return STANDARD_NORMAL.inverseCumulativeProbability(1 - (1 - confidence) / 2);
    }

    /** Eq. 4.2: expected events of a sub-stream of length f, E[N_i] = f / E[G_i]. */
    public static double substreamSize(double substreamMs, double meanGapMs) {
        return substreamMs / meanGapMs;
    }

    /**
     * Eq. 4.4, numerator and denominator divided by μ²: the window sample size
     * n = z²·cv² / (r² + z²·cv²/N) with cv = σ/μ of the value the window aggregates; never more than N.
     */
    public static double windowSampleSize(double z, double error, double relativeVariance, double windowSize) {
        if (windowSize <= 0) {
            return 0;
        }
        double zz = z * z * relativeVariance;
        return Math.min(windowSize, zz / (error * error + zz / windowSize));
    }

    /**
     * Eq. 4.7: events of sub-stream i ingested by its deadline, ((ddl_i − E[D]) − ddl_{i−1}) / E[G]; with
     * ddl_i − ddl_{i−1} = f this is (f − E[D]) / E[G], at least one event.
     */
    public static double arrivedByDeadline(double substreamMs, double meanDelayMs, double meanGapMs) {
        return Math.max(1.0, (substreamMs - meanDelayMs) / meanGapMs);
    }

    /** Eq. 4.8: the sub-stream's sampling rate θ = n_i / N_{i,t=ddl}, capped at 1 (then Aion slacks a little). */
    public static double samplingRate(double substreamSample, double arrivedByDeadline) {
        return Math.min(1.0, substreamSample / arrivedByDeadline);
    }
}
