package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.SchedulingPolicy;

import java.util.List;

/**
 * {@code default}: plain Flink. Returns every task id and {@link #neverPauses()} is true, so the
 * scheduler never pauses anything and the OS shares the CPU. Starvation: none beyond the OS's.
 */
public final class DefaultPolicy implements SchedulingPolicy {

    @Override
    public String name() {
        return "default";
    }

    @Override
    public List<String> choose(SchedulerState state, int maxRunning) {
        return state.taskIds();
    }

    @Override
    public boolean neverPauses() {
        return true;
    }
}
