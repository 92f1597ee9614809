package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The growing, de-duplicated, capped list of task ids a policy returns. Package-private helper. */
final class Selection {

    private final int max;
    private final Set<String> ids = new LinkedHashSet<>();

    Selection(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxRunning must be >= 1, got " + max);
        }
        this.max = max;
    }

    boolean full() {
        return ids.size() >= max;
    }

    boolean contains(String id) {
        return ids.contains(id);
    }

    /** Adds one id unless full or already present. */
    boolean add(String id) {
        return !full() && ids.add(id);
    }

    /** Adds, in order, the ids whose task is runnable. */
    void addRunnable(SchedulerState state, Iterable<String> candidates) {
        for (String id : candidates) {
            if (full()) {
                return;
            }
            if (state.runnable(id)) {
                add(id);
            }
        }
    }

    /**
     * Gives slots no runnable task needs to idle tasks, in order: an idle task costs no CPU, and being
     * resumed it can take input that arrives during the cycle instead of waiting for the next one.
     */
    void fillIdle(Iterable<String> candidates) {
        for (String id : candidates) {
            if (full()) {
                return;
            }
            add(id);
        }
    }

    List<String> toList() {
        return List.copyOf(ids);
    }
}
