package io.klink.scheduler.policy;

/**
 * The queued work against one cycle's CPU, behind Klink's two work-conserving deviations from the paper:
 * <ul>
 *   <li><b>Light load</b> (on unless {@code strict}): when all queued work fits in one cycle on the CPU the
 *       TaskManager really has (min(C, {@code cpu}) cores: pinning and quota count), nothing is paused
 *       ({@link #light}; {@code why} starts with {@code light:}); {@code strict} gives the paper's selection
 *       in every cycle.</li>
 *   <li><b>Fill</b> (off unless {@code fill}): when the C least-slack pipelines hold less work than one
 *       cycle's CPU, r · min(C, cpu), further runnable pipelines join in slack order until they do, so the
 *       cores are not left idle while pipelines wait paused ({@link #unitMs}, {@link #budgetMs}).</li>
 * </ul>
 * Package-private helper of {@link KlinkPolicy}.
 */
final class CycleDemand {

    private CycleDemand() {}

    /** CPU time (ms) one cycle offers: r · min(C, cpu). */
    static double budgetMs(long cycleMs, int maxRunning, PolicyConfig config) {
        return cycleMs * Math.min(maxRunning, config.cpuCores());
    }

    /**
     * Work conservation: when everything queued can be processed within this cycle on C cores (demand ≤
     * r · C), no query's window waits for another's, so pausing would only idle cores (at light load the
     * TaskManager's core was 75 % idle while two of four pipelines sat paused). Every task then runs, as
     * under the OS; slack ordering starts as soon as the queued work exceeds what one cycle can drain.
     */
    static boolean light(Topology topo, double budgetMs) {
        return totalMs(topo) <= budgetMs;
    }

    /** CPU time (ms) to drain every queue of every pipeline. */
    static double totalMs(Topology topo) {
        double total = 0;
        for (String unit : topo.units()) {
            total += unitMs(topo, unit);
        }
        return total;
    }

    /**
     * CPU time (ms) to drain every queue on one pipeline's paths, on this node: with pipelines spanning nodes
     * (distributed Klink, §4) the stages on other nodes cost this node's CPU nothing.
     */
    static double unitMs(Topology topo, String unit) {
        double total = 0;
        for (String u : topo.swmInputs(unit)) {
            total += Topology.localDrainCostMs(topo.path(u, unit));
        }
        return total;
    }
}
