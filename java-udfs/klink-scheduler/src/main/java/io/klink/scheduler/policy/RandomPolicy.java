package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.SchedulingPolicy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code random} (a toy baseline): every cycle runs the pipelines of C runnable tasks drawn uniformly at random
 * from a seeded stream, so two runs with the same seed choose alike. Slots left over go to idle tasks.
 */
public final class RandomPolicy implements SchedulingPolicy {

    private final SplittableRandom rng;

    public RandomPolicy(long seed) {
        this.rng = new SplittableRandom(seed);
    }

    @Override
    public String name() {
        return "random";
    }

    @Override
    public List<String> choose(SchedulerState state, int maxRunning) {
        Selection sel = new Selection(maxRunning, Topology.of(state));
        List<String> runnable = new ArrayList<>(state.runnableTaskIds());
        for (int i = runnable.size() - 1; i > 0; i--) {  // Fisher-Yates
            int j = rng.nextInt(i + 1);
            runnable.set(j, runnable.set(i, runnable.get(j)));
        }
        runnable.forEach(sel::add);
        sel.fillIdle(state.taskIds());
        return sel.toList();
    }
}
