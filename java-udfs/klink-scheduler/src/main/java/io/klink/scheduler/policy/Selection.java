package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The growing, de-duplicated list of task ids a policy returns, capped at C <em>pipelines</em> (scheduling
 * units, {@link Topology#units()}) for every policy: a policy ranks tasks (or queries), and choosing a task
 * runs its whole pipeline. The tasks of one pipeline feed each other and take turns on a core; counting
 * them one by one against C would let a cheap downstream task, which only has input while its source runs,
 * take the slot its own source needs — and would make C mean pipelines for Klink (Alg. 1 returns a query)
 * and tasks for the baselines. Package-private helper.
 */
final class Selection {

    private final int max;
    private final Topology topo;
    private final Set<String> ids = new LinkedHashSet<>();
    private final Set<String> units = new LinkedHashSet<>();

    Selection(int maxUnits, Topology topo) {
        if (maxUnits < 1) {
            throw new IllegalArgumentException("maxRunning must be >= 1, got " + maxUnits);
        }
        this.max = maxUnits;
        this.topo = topo;
    }

    boolean full() {
        return units.size() >= max;
    }

    boolean contains(String id) {
        return ids.contains(id);
    }

    /** Adds the whole pipeline of a task, unless C pipelines are chosen already; true if anything was added. */
    boolean add(String id) {
        String unit = topo.unitOf(id);
        if (!units.contains(unit) && full()) {
            return false;
        }
        units.add(unit);
        return ids.addAll(topo.unitTasks(unit, topo.inputs(unit)));
    }

    /** Adds one task only (its pipeline counts against C), e.g. memory management's non-source tasks. */
    boolean addOnly(String id) {
        String unit = topo.unitOf(id);
        if (!units.contains(unit) && full()) {
            return false;
        }
        units.add(unit);
        return ids.add(id);
    }

    /**
     * Adds, in order, the pipelines of the tasks that are runnable on this node (a pipeline whose work waits on
     * another node would take a slot this node cannot use).
     */
    void addRunnable(SchedulerState state, Iterable<String> candidates) {
        for (String id : candidates) {
            if (full()) {
                return;
            }
            if (state.runnable(id) && state.local(id)) {
                add(id);
            }
        }
    }

    /**
     * Adds, in order, the pipelines of runnable tasks beyond C while the work of those chosen
     * ({@code demandMs} of a pipeline) is below {@code budgetMs}: work conservation for a cycle whose C
     * pipelines would drain early.
     */
    void addRunnableUntil(SchedulerState state, Iterable<String> candidates,
                          ToDoubleFunction<String> demandMs, double budgetMs) {
        double chosen = 0;
        for (String unit : units) {
            chosen += demandMs.applyAsDouble(unit);
        }
        for (String id : candidates) {
            if (chosen >= budgetMs) {
                return;
            }
            String unit = topo.unitOf(id);
            if (state.runnable(id) && state.local(id) && units.add(unit)) {
                ids.addAll(topo.unitTasks(unit, topo.inputs(unit)));
                chosen += demandMs.applyAsDouble(unit);
            }
        }
    }

    /**
     * Gives slots no runnable pipeline needs to idle ones, in order: an idle task costs no CPU, and being
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
