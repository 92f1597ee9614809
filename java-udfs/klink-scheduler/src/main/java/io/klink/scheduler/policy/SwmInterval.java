package io.klink.scheduler.policy;

/**
 * A predicted SWM ingestion time: w ~ Normal(mean, σ²) and its confidence interval [t_min, t_max]
 * (Eq. 5-7). All values are wall-clock ms.
 */
public record SwmInterval(double meanMs, double sigmaMs, double tMinMs, double tMaxMs) {

    public SwmInterval {
        if (tMinMs > tMaxMs) {
            throw new IllegalArgumentException("t_min " + tMinMs + " > t_max " + tMaxMs);
        }
    }

    /** True if an observed ingestion time falls inside [t_min, t_max]. */
    public boolean contains(double timeMs) {
        return timeMs >= tMinMs && timeMs <= tMaxMs;
    }
}
