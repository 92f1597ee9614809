package io.klink.scheduler;

import java.util.List;

/**
 * A runtime scheduling policy (paper §5: the "independent policy component"). Pure Java: it sees
 * {@link SchedulerState}s and names the tasks to run; pausing and resuming Flink tasks is the
 * caller's business.
 *
 * <p><b>Contract.</b> The scheduler owns one policy instance and calls {@link #choose} exactly once
 * per cycle, from one thread, with states whose {@code nowMs} does not decrease. Policies are
 * stateful: each call both <em>observes</em> the state (updating whatever history the policy keeps:
 * SWM ingestion times, per-epoch delay statistics, waiting counters, round-robin position) and
 * <em>decides</em>. Tasks that disappear from the state are forgotten. Instances are not thread-safe.
 */
public interface SchedulingPolicy {

    /** The policy's name as accepted by {@code Policies.create} (e.g. {@code "klink"}). */
    String name();

    /**
     * Chooses the tasks to run during the next cycle; every other registered task is paused.
     *
     * @param state      this cycle's state
     * @param maxRunning C, the maximum number of pipelines (scheduling units: a query, or a join with its
     *                   inputs) to run at once (&gt;= 1)
     * @return distinct task ids, highest priority first, of at most {@code maxRunning} pipelines; the one
     *         exception is the {@code default} policy, which returns every task id and means
     *         "never pause anything"
     */
    List<String> choose(SchedulerState state, int maxRunning);

    /**
     * Why the last {@link #choose} decided as it did, for the per-cycle log (e.g. each query's slack);
     * empty if the policy has nothing to add. No commas (it goes into one CSV cell).
     */
    default String explainLastChoice() {
        return "";
    }

    /** True if the framework must never pause anything under this policy (plain Flink + OS). */
    default boolean neverPauses() {
        return false;
    }
}
