package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.SchedulingPolicy;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code rr} (paper §6.1.3): cycles over the tasks in task-id order and runs the next C runnable
 * ones for a fixed quantum of N cycles (a "turn"). A turn ends early when none of its tasks has input
 * left. The rotation position is the last task id served, so tasks that register or leave do not
 * disturb it. Slots the turn does not fill go to idle tasks (no CPU cost).
 *
 * <p>Starvation: with n registered tasks, a task that is runnable at every turn boundary is served
 * within ⌈n/C⌉ turns after the current one, i.e. within ⌈n/C⌉·N cycles after the current turn ends
 * (each turn moves the rotation past C runnable tasks or past all of them).
 */
public final class RoundRobinPolicy implements SchedulingPolicy {

    private final int quantum;
    private List<String> turn = List.of();
    private int cyclesLeft;
    private String lastServed;

    /** @param quantum N, cycles per turn (&gt;= 1) */
    public RoundRobinPolicy(int quantum) {
        if (quantum < 1) {
            throw new IllegalArgumentException("parameter quantum (rr, cycles) must be >= 1, got " + quantum);
        }
        this.quantum = quantum;
    }

    @Override
    public String name() {
        return "rr";
    }

    @Override
    public List<String> choose(SchedulerState state, int maxRunning) {
        Selection sel = new Selection(maxRunning, Topology.of(state));
        List<String> keep = new ArrayList<>();
        if (cyclesLeft > 0) {
            for (String id : turn) {
                if (state.tasks().containsKey(id) && state.runnable(id)) {
                    keep.add(id);
                }
            }
        }
        if (!keep.isEmpty()) {
            cyclesLeft--;
            keep.forEach(sel::add);
        } else {
            List<String> ids = state.taskIds();
            int n = ids.size();
            int start = 0;
            if (lastServed != null) {
                while (start < n && ids.get(start).compareTo(lastServed) <= 0) {
                    start++;
                }
            }
            for (int i = 0; i < n && !sel.full(); i++) {
                String id = ids.get((start + i) % n);
                if (state.runnable(id) && sel.add(id)) {
                    lastServed = id;
                }
            }
            turn = sel.toList();
            cyclesLeft = turn.isEmpty() ? 0 : quantum - 1;
        }
        sel.fillIdle(state.taskIds());
        return sel.toList();
    }
}
