package io.klink.scheduler.policy;

/**
 * Klink's SWM ingestion estimator for one input stream of one windowed query (§3.1, Eq. 2-7).
 *
 * <p>Model: the SWM of the window with event-time deadline D is ingested at w = D + d, where d is
 * the stream's ingestion delay (how far the ingested watermark trails the wall clock: network delay
 * plus the watermark bound and emission period). That reads Eq. 2/5, E[w_{n+1}] = E[d_n] + p^q, with
 * the periodic term p^q taken as the next deadline D_{n+1} (previous deadline + slide), which the
 * window task reports directly, so only d has to be learnt. d's per-epoch mean and second moment
 * live in an {@link EpochHistory} of h epochs.
 *
 * <p>Prediction: mean = D + μ̄, σ = √(χ̄ − μ̄²) (pooled; Eq. 6 ambiguity, see {@link KlinkMath}), at
 * least 1 ms; before the first finished epoch, mean = D and σ = the cold-start σ (the policy passes
 * r). [t_min, t_max] = mean ∓ z_f·σ (Eq. 7).
 */
public final class KlinkEstimator {

    /** Smallest σ used, ms: keeps Eq. 10 well defined when every epoch had the same delay. */
    public static final double SIGMA_FLOOR_MS = 1.0;

    private final EpochHistory history;
    private final double confidence;
    private final double z;
    private final double coldSigmaMs;

    /**
     * @param h           epochs of history (&gt;= 1)
     * @param f           confidence of [t_min, t_max], 0 &lt; f &lt; 1
     * @param coldSigmaMs σ to use before any epoch has finished (&gt;= 0)
     */
    public KlinkEstimator(int h, double f, double coldSigmaMs) {
        this.history = new EpochHistory(h);
        this.confidence = f;
        this.z = KlinkMath.zForConfidence(f);
        if (!(coldSigmaMs >= 0.0)) {
            throw new IllegalArgumentException("coldSigmaMs must be >= 0, got " + coldSigmaMs);
        }
        this.coldSigmaMs = coldSigmaMs;
    }

    /** One delay sample (ms) for the open epoch (Alg. 2 ProcessEvent). */
    public void addDelay(double delayMs) {
        history.add(delayMs);
    }

    /**
     * An SWM ended the epoch (Alg. 2 NextEpoch).
     *
     * @return true if the epoch had delay samples and was pushed into the history
     */
    public boolean closeEpoch() {
        return history.closeEpoch();
    }

    public EpochHistory history() {
        return history;
    }

    public double confidence() {
        return confidence;
    }

    /**
     * The predicted ingestion time of the SWM that will close the window with event-time deadline
     * {@code nextDeadlineMs}, and its confidence-f interval (Alg. 1 ComputeConfInterval).
     */
    public SwmInterval predict(long nextDeadlineMs) {
        double mean;
        double sigma;
        if (history.epochs() == 0) {
            mean = nextDeadlineMs;
            sigma = Math.max(coldSigmaMs, SIGMA_FLOOR_MS);
        } else {
            mean = nextDeadlineMs + history.meanDelay();
            sigma = Math.max(Math.sqrt(history.pooledVariance()), SIGMA_FLOOR_MS);
        }
        return new SwmInterval(mean, sigma, mean - z * sigma, mean + z * sigma);
    }
}
