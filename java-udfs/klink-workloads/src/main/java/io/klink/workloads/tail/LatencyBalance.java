package io.klink.workloads.tail;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * Latency-based load balancing, Algorithm 2 of Du and Gupta (the seed tail-latency-storm-du-gupta.txt, §3.3),
 * for one upstream task and its n downstream tasks: every monitor period, age each downstream task's latency
 * T_j into Wt_j = α·T_j + (1 − α)·Wt_j (line 5), sort by Wt ascending (line 7), pair the k-th fastest with the
 * k-th slowest and, while slow/fast exceeds the threshold, shift one unit of this task's traffic from the slow
 * one to the fast one (lines 8–14; the paper's unit is 1 % of the outgoing traffic, α 0.5, threshold 1.2,
 * period 5 s). Records are then sent by smooth weighted round robin over the shares, so each downstream task
 * gets its share exactly over any window of records, without randomness.
 */
public final class LatencyBalance {

    private final double alpha;
    private final double threshold;
    private final double unit;
    private final double[] share;
    private final double[] aged;
    private final double[] credit;

    public LatencyBalance(int downstream, double alpha, double threshold, double unit) {
        if (downstream < 1 || alpha <= 0 || alpha > 1 || threshold < 1 || unit <= 0 || unit > 1) {
            throw new IllegalArgumentException("latency balance needs n >= 1, 0 < alpha <= 1, threshold >= 1 and "
                    + "0 < unit <= 1; got n=" + downstream + " alpha=" + alpha + " threshold=" + threshold
                    + " unit=" + unit);
        }
        this.alpha = alpha;
        this.threshold = threshold;
        this.unit = unit;
        this.share = new double[downstream];
        Arrays.fill(share, 1.0 / downstream);
        this.aged = new double[downstream];
        Arrays.fill(aged, Double.NaN);
        this.credit = new double[downstream];
    }

    /**
     * One monitor period: {@code latency[j]} is T_j (NaN where task j reported nothing new, which keeps its
     * Wt_j). Tasks never measured are left out of the pairing.
     */
    public void adjust(double[] latency) {
        for (int j = 0; j < share.length; j++) {
            if (!Double.isNaN(latency[j])) {
                aged[j] = Double.isNaN(aged[j]) ? latency[j] : alpha * latency[j] + (1 - alpha) * aged[j];
            }
        }
        int[] order = IntStream.range(0, share.length).filter(j -> !Double.isNaN(aged[j])).boxed()
                .sorted(Comparator.comparingDouble(j -> aged[j])).mapToInt(Integer::intValue).toArray();
        for (int k = 0; k < order.length / 2; k++) {
            int fast = order[k], slow = order[order.length - 1 - k];
            if (!(aged[slow] > threshold * aged[fast])) {
                break;
            }
            double moved = Math.min(unit, share[slow]);
            share[slow] -= moved;
            share[fast] += moved;
        }
    }

    /** The downstream task of the next record. */
    public int next() {
        int best = 0;
        for (int j = 0; j < share.length; j++) {
            credit[j] += share[j];
            if (credit[j] > credit[best]) {
                best = j;
            }
        }
        credit[best] -= 1;
        return best;
    }

    public double[] shares() {
        return share.clone();
    }
}
