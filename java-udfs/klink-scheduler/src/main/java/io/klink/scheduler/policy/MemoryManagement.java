package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Klink's memory management (paper §3.4). When memory used ≥ b the policy enters memory mode: queries are
 * ranked by the events processing them would remove, p = max_k min(sz_k, events processable in r) ·
 * (1 − Π_{i≤k} S_i) over the prefixes of each pipeline's non-source stages ({@link KlinkMath#memoryRelief}),
 * ties by least slack, and only the tasks of the best prefix run; remaining slots follow slack order without
 * source tasks (no new ingestion while memory is short). Memory mode ends when memory &lt; b, or after K
 * consecutive cycles ({@code mmcycles}); in the latter case slack ordering runs for K cycles before memory
 * mode may start again, so under persistent pressure at most half the cycles are memory cycles.
 * Package-private helper of {@link KlinkPolicy} ({@code klink}; {@code klink-nomm} has it disabled).
 */
final class MemoryManagement {

    private final boolean enabled;
    private final double bound;
    private final int maxCycles;
    private boolean active;
    private int cycles;
    private int cooldown;

    MemoryManagement(boolean enabled, PolicyConfig config) {
        this.enabled = enabled;
        this.bound = config.memoryBound();
        this.maxCycles = config.memoryCycles();
    }

    boolean enabled() {
        return enabled;
    }

    /** True while the current cycle is decided by memory management. */
    boolean active() {
        return active;
    }

    /** Enters or leaves memory mode for this cycle, given the memory-used fraction. */
    void update(double memoryUsed) {
        if (!enabled) {
            active = false;
            return;
        }
        if (active) {
            if (memoryUsed < bound) {
                active = false;
            } else if (cycles >= maxCycles) {
                active = false;
                cooldown = maxCycles - 1; // this cycle plus K − 1 more order by slack
            } else {
                cycles++;
            }
        } else if (cooldown > 0) {
            cooldown--;
        } else if (memoryUsed >= bound) {
            active = true;
            cycles = 1;
        }
    }

    /**
     * A memory cycle's choice: the runnable tasks of the best relief prefixes, then the runnable non-source
     * tasks in slack order, then idle non-source tasks, each task alone (no whole pipelines).
     */
    List<String> choose(SchedulerState state, Topology topo, Map<String, Double> slack, List<String> taskOrder,
                        Selection sel) {
        List<String> nonSource = new ArrayList<>();
        for (String id : taskOrder) {
            if (!state.tasks().get(id).isSource()) {
                nonSource.add(id);
            }
        }
        for (List<String> tasks : List.of(reliefTasks(state, topo, slack), nonSource)) {
            tasks.stream().filter(state::runnable).forEach(sel::addOnly);
        }
        nonSource.forEach(sel::addOnly);
        return sel.toList();
    }

    private record Relief(String unit, double p, List<String> tasks) {
    }

    /** Tasks of the pipelines prefixes with the largest p (§3.4), best first, each downstream first. */
    private static List<String> reliefTasks(SchedulerState state, Topology topo, Map<String, Double> slack) {
        List<Relief> reliefs = new ArrayList<>();
        for (String unit : topo.units()) {
            Relief best = bestRelief(state, topo, unit);
            if (best != null && best.p() > 0.0) {
                reliefs.add(best);
            }
        }
        reliefs.sort(Comparator.comparingDouble(Relief::p).reversed()
                .thenComparingDouble(r -> slack.get(r.unit()))
                .thenComparing(Relief::unit));
        List<String> out = new ArrayList<>();
        for (Relief r : reliefs) {
            out.addAll(r.tasks());
        }
        return out;
    }

    /** The non-source prefix of one of the unit's paths that removes the most events, or null if none has stages. */
    private static Relief bestRelief(SchedulerState state, Topology topo, String unit) {
        Relief best = null;
        for (String u : topo.swmInputs(unit)) {
            List<Topology.Stage> path = new ArrayList<>();
            for (Topology.Stage s : topo.path(u, unit)) {
                if (!s.source()) {
                    path.add(s);
                }
            }
            if (path.isEmpty()) {
                continue;
            }
            double[] p = prefixRelief(path, state.cycleMs());
            int kBest = 0;
            for (int k = 1; k < p.length; k++) {
                if (p[k] > p[kBest]) {
                    kBest = k;
                }
            }
            if (best == null || p[kBest] > best.p()) {
                List<String> tasks = new ArrayList<>();
                for (int i = kBest; i >= 0; i--) {
                    tasks.addAll(path.get(i).taskIds());
                }
                best = new Relief(unit, p[kBest], tasks);
            }
        }
        return best;
    }

    /** p of every prefix of the path's stages. */
    private static double[] prefixRelief(List<Topology.Stage> path, long cycleMs) {
        long[] queued = new long[path.size()];
        double[] cost = new double[path.size()];
        double[] sel = new double[path.size()];
        for (int i = 0; i < path.size(); i++) {
            queued[i] = path.get(i).queued();
            cost[i] = path.get(i).costNs();
            sel[i] = path.get(i).selectivity();
        }
        return KlinkMath.memoryRelief(queued, cost, sel, cycleMs);
    }
}
