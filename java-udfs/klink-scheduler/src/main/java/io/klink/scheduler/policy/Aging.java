package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Starvation bound shared by the priority policies. A task's wait counts the cycles in which it was
 * runnable but not chosen (cycles in which it had no input neither count nor reset); choosing it
 * resets the wait. Once the wait reaches X the task is <em>overdue</em> and the policy puts it first,
 * longest wait first. Since a later-overdue task always has a shorter wait, an overdue task is never
 * overtaken, so a task that stays runnable runs within X + ⌈n/C⌉ cycles (n tasks, C slots).
 * X = 0 disables aging. Package-private helper.
 */
final class Aging {

    private final int x;
    private final Map<String, Integer> waiting = new HashMap<>();
    private boolean forced;

    Aging(int x) {
        if (x < 0) {
            throw new IllegalArgumentException("aging bound must be >= 0, got " + x);
        }
        this.x = x;
    }

    int bound() {
        return x;
    }

    int waiting(String taskId) {
        return waiting.getOrDefault(taskId, 0);
    }

    /** Runnable tasks whose wait reached X, longest wait first (then by id). Empty if disabled. */
    List<String> overdue(SchedulerState state) {
        List<String> out = new ArrayList<>();
        forced = false;
        if (x == 0) {
            return out;
        }
        for (String id : state.runnableTaskIds()) {
            if (waiting(id) >= x) {
                out.add(id);
            }
        }
        out.sort((a, b) -> {
            int c = Integer.compare(waiting(b), waiting(a));
            return c != 0 ? c : a.compareTo(b);
        });
        forced = !out.isEmpty();
        return out;
    }

    /** {@code aged:} if the last {@link #overdue} call forced a task in, else empty (a policy's explanation). */
    String explain() {
        return forced ? "aged:" : "";
    }

    /** Records the outcome of a cycle. */
    void update(SchedulerState state, Collection<String> chosen) {
        Set<String> chosenSet = new HashSet<>(chosen);
        waiting.keySet().retainAll(state.tasks().keySet());
        for (String id : state.tasks().keySet()) {
            if (chosenSet.contains(id)) {
                waiting.remove(id);
            } else if (state.runnable(id)) {
                waiting.merge(id, 1, Integer::sum);
            }
        }
    }
}
