package io.klink.sampler;

import java.io.Serializable;
import java.util.Collection;

/**
 * What a window aggregates, as Eq. 4.4 needs it: cv² = σ²/μ² of the value whose window result the sample must
 * estimate within r_thr, from the monitor's history of closed sub-streams (per-sub-stream statistics only, no
 * events kept). One implementation per kind of window; the workload's Java builder picks it.
 */
public interface ValueModel extends Serializable {

    /** σ²/μ² of the window's value over the history's sub-streams (0 with an empty history). */
    double relativeVariance(Collection<Substream> history);

    /**
     * A count per key (YSB: views per campaign). The value is an event's share of the average key, p = 1/K:
     * cv² = (1 − p)/p = K − 1, K = the most keys a sub-stream of the history had.
     */
    static ValueModel keyCount() {
        return history -> Math.max(0, mostKeys(history) - 1);
    }

    /**
     * The mean of the events' field {@code field} over the whole window (NYT: the average fare per trip, the
     * thesis' mean estimation, Eq. 4.4): cv² = σ²/μ² of the field, pooled over the history.
     */
    static ValueModel mean(int field) {
        return history -> fieldRelativeVariance(history, field);
    }

    /**
     * Centroids of k clusters (kMeans): each centroid is the mean of the ≈ N/k points of its cluster, and its
     * error is measured relative to the spread of the window's points, S² = σ_x² + σ_y² (a centroid has no
     * meaningful relative error of its own: the points' mean sits near the origin). A centroid of n/k sampled
     * points of its cluster's N/k has E[d²] = σ_c²·k·(1/n − 1/N) (σ_c² the cluster's 2-D variance); in Eq. 4.3
     * with μ replaced by S, cv² = k·σ_c²/S². The sampler sees no clusters, and a cluster never spreads more than
     * all points (σ_c² ≤ S²), so the model takes the bound cv² = k: conservative (the generator's clusters have
     * σ_c²/S² ≈ 0.005), and independent of the coordinates' scale.
     */
    static ValueModel centroids(int k) {
        return history -> history.isEmpty() ? 0 : k;
    }

    private static double fieldRelativeVariance(Collection<Substream> history, int field) {
        RunningStats pooled = RunningStats.pooled(history.stream().map(s -> s.field(field)).toList());
        double mean = pooled.mean();
        return pooled.count() == 0 || mean == 0 ? 0 : pooled.variance() / (mean * mean);
    }

    private static int mostKeys(Collection<Substream> history) {
        return history.stream().mapToInt(Substream::distinctKeys).max().orElse(1);
    }
}
