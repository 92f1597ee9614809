package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.SchedulingPolicy;
import io.klink.scheduler.TaskInfo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code hr}, Highest Rate (Sharaf et al., TODS 2008; paper §6.1.3): every runnable task gets the
 * global output rate of the path from its operator to the query's output,
 * GS / GC with GS = Π S_i (global selectivity) and GC = Σ_i c_i · Π_{j&lt;i} S_j (global average cost
 * of one input record), over the stages from the task's own to the last one (continuing into the join
 * the query feeds, if any). The highest rates run first: productive, cheap paths win. A sink emits to
 * the user, so its selectivity counts as 1; a path with no measured cost yet ranks first (so it gets
 * measured). Ties go by task id.
 *
 * <p>Starvation: priorities do not depend on waiting, so a low-rate path can wait as long as
 * higher-rate paths have input. With aging on (X &gt; 0, option age; off by default, as in the paper) a task that stays runnable runs
 * within X + ⌈n/C⌉ cycles.
 */
public final class HighestRatePolicy implements SchedulingPolicy {

    private final Aging aging;

    /** @param agingCycles X, 0 = no aging */
    public HighestRatePolicy(int agingCycles) {
        this.aging = new Aging(agingCycles);
    }

    @Override
    public String name() {
        return "hr";
    }

    /**
     * Global output rate GS/GC of a path (records out per ns of CPU), upstream first.
     *
     * @return +∞ if the path's cost is unknown (0)
     */
    public static double globalOutputRate(double[] costNs, double[] selectivity, boolean[] sink) {
        double gs = 1.0;
        double gc = 0.0;
        for (int i = 0; i < costNs.length; i++) {
            gc += costNs[i] * gs;
            gs *= sink[i] ? 1.0 : selectivity[i];
        }
        return gc > 0.0 ? gs / gc : Double.POSITIVE_INFINITY;
    }

    @Override
    public String explainLastChoice() {
        return aging.explain();
    }

    @Override
    public List<String> choose(SchedulerState state, int maxRunning) {
        Topology topo = Topology.of(state);
        Map<String, Double> rate = new HashMap<>();
        for (String id : state.runnableTaskIds()) {
            TaskInfo t = state.tasks().get(id);
            rate.put(id, pathRate(topo.pathFrom(t.queryId(), t.stage())));
        }
        List<String> order = new ArrayList<>(rate.keySet());
        order.sort(Comparator.<String>comparingDouble(rate::get).reversed().thenComparing(Comparator.naturalOrder()));
        Selection sel = new Selection(maxRunning, topo);
        aging.overdue(state).forEach(sel::add);
        order.forEach(sel::add);
        sel.fillIdle(state.taskIds());
        List<String> chosen = sel.toList();
        aging.update(state, chosen);
        return chosen;
    }

    private static double pathRate(List<Topology.Stage> path) {
        double[] c = new double[path.size()];
        double[] s = new double[path.size()];
        boolean[] sink = new boolean[path.size()];
        for (int i = 0; i < path.size(); i++) {
            c[i] = path.get(i).costNs();
            s[i] = path.get(i).selectivity();
            sink[i] = path.get(i).sink();
        }
        return globalOutputRate(c, s, sink);
    }
}
