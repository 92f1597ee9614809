package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.SchedulingPolicy;
import io.klink.scheduler.TaskSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code fcfs} (paper §6.1.3): runs the pipelines of the runnable tasks whose oldest queued record
 * arrived first (the agent reads arrival times off Flink's counters, {@link io.klink.scheduler.ArrivalClock}).
 * A task that does not report an arrival time is ranked by the time it has been waiting instead:
 * the start of the first cycle in which it was runnable since it last ran. Ties go by task id.
 *
 * <p>Starvation: with arrival times, a waiting task's head never gets younger while every newer
 * record ranks behind it, so it runs once the finitely many older records are processed — finite
 * but not bounded in cycles. With aging on (X &gt; 0, option age; off by default, as in the paper) it
 * runs within X + ⌈n/C⌉ cycles in which it is runnable.
 */
public final class FcfsPolicy implements SchedulingPolicy {

    private final Aging aging;
    private final Map<String, Long> runnableSince = new HashMap<>();

    /** @param agingCycles X, 0 = no aging */
    public FcfsPolicy(int agingCycles) {
        this.aging = new Aging(agingCycles);
    }

    @Override
    public String name() {
        return "fcfs";
    }

    @Override
    public String explainLastChoice() {
        return aging.explain();
    }

    @Override
    public List<String> choose(SchedulerState state, int maxRunning) {
        Selection sel = new Selection(maxRunning, Topology.of(state));
        runnableSince.keySet().retainAll(state.tasks().keySet());
        List<String> runnable = state.runnableTaskIds();
        Map<String, Long> key = new HashMap<>();
        for (String id : runnable) {
            long since = runnableSince.computeIfAbsent(id, k -> state.nowMs());
            long arrival = state.snapshot(id).oldestQueuedArrivalMs();
            key.put(id, arrival != TaskSnapshot.UNKNOWN_ARRIVAL ? arrival : since);
        }
        List<String> order = new ArrayList<>(runnable);
        order.sort(Comparator.<String>comparingLong(key::get).thenComparing(Comparator.naturalOrder()));
        aging.overdue(state).forEach(sel::add);
        order.forEach(sel::add);
        sel.fillIdle(state.taskIds());
        List<String> chosen = sel.toList();
        for (String id : chosen) {
            runnableSince.remove(id);
        }
        for (String id : state.tasks().keySet()) {
            if (!state.runnable(id)) {
                runnableSince.remove(id);
            }
        }
        aging.update(state, chosen);
        return chosen;
    }
}
