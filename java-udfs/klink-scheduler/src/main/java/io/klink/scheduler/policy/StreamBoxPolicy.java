package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.SchedulingPolicy;
import io.klink.scheduler.TaskSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * {@code sbox}, StreamBox-style (Miao et al., ATC '17; paper §6.1.3): looks up the query with the
 * closest window deadline and runs it until a watermark is processed, i.e. until the input watermark
 * of its window task(s) reaches that deadline (the window fires); only then is the next closest
 * deadline chosen, even if a closer one appeared meanwhile. The chosen query's tasks go first
 * (downstream first, join inputs included); free slots go to the other queries by deadline, then to
 * queries without a deadline (by id), then to idle tasks.
 *
 * <p>Starvation: a query whose watermark never reaches its deadline (e.g. an idle input) would hold
 * its place forever; with aging on (X &gt; 0, option age; off by default, as in the paper) every task that stays runnable still runs
 * within X + ⌈n/C⌉ cycles.
 */
public final class StreamBoxPolicy implements SchedulingPolicy {

    private final Aging aging;
    private String current;
    private long target = TaskSnapshot.NO_DEADLINE;

    /** @param agingCycles X, 0 = no aging */
    public StreamBoxPolicy(int agingCycles) {
        this.aging = new Aging(agingCycles);
    }

    @Override
    public String name() {
        return "sbox";
    }

    /** The query SBox is currently sticking to, or null. */
    public String currentQuery() {
        return current;
    }

    @Override
    public String explainLastChoice() {
        return aging.explain();
    }

    @Override
    public List<String> choose(SchedulerState state, int maxRunning) {
        Topology topo = Topology.of(state);
        List<String> units = topo.units();
        if (current != null) {
            long wm = topo.windowWatermark(current);
            boolean passed = wm != TaskSnapshot.NO_WATERMARK && wm >= target;
            if (!units.contains(current) || passed) {
                current = null;
                target = TaskSnapshot.NO_DEADLINE;
            }
        }
        List<String> order = new ArrayList<>(units);
        order.sort(Comparator.<String>comparingLong(topo::deadline).thenComparing(Comparator.naturalOrder()));
        if (current == null && !order.isEmpty() && topo.deadline(order.get(0)) != TaskSnapshot.NO_DEADLINE) {
            current = order.get(0);
            target = topo.deadline(current);
        }
        if (current != null) {
            order.remove(current);
            order.add(0, current);
        }
        Selection sel = new Selection(maxRunning, topo);
        aging.overdue(state).forEach(sel::add);
        List<String> taskOrder = new ArrayList<>();
        for (String unit : order) {
            taskOrder.addAll(topo.unitTasks(unit, topo.inputs(unit)));
        }
        sel.addRunnable(state, taskOrder);
        sel.fillIdle(taskOrder);
        sel.fillIdle(state.taskIds());
        List<String> chosen = sel.toList();
        aging.update(state, chosen);
        return chosen;
    }
}
