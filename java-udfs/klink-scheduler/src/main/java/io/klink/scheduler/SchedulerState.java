package io.klink.scheduler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Everything a policy sees in one scheduling cycle. Immutable; maps are sorted by task id so that
 * every policy is deterministic for a given sequence of states.
 *
 * <p>History across cycles (SWM ingestion times, per-epoch delay statistics, waiting counters) is
 * not part of the state: policies are stateful and build it themselves from the successive states
 * passed to {@link SchedulingPolicy#choose}. See that method for the contract.
 *
 * @param nowMs              wall-clock time of this cycle, ms
 * @param cycleMs            the scheduling cycle length r, ms (&gt; 0)
 * @param tasks              registered tasks by id (stored as an unmodifiable map sorted by id)
 * @param snapshots          collected runtime data by task id (a task without one is treated as idle)
 * @param memoryUsedFraction memory in use / memory available to the TaskManager, 0..1
 */
public record SchedulerState(
        long nowMs,
        long cycleMs,
        Map<String, TaskInfo> tasks,
        Map<String, TaskSnapshot> snapshots,
        double memoryUsedFraction) {

    public SchedulerState {
        if (cycleMs <= 0) {
            throw new IllegalArgumentException("cycleMs (r) must be > 0, got " + cycleMs);
        }
        if (!(memoryUsedFraction >= 0.0 && memoryUsedFraction <= 1.0)) {
            throw new IllegalArgumentException("memoryUsedFraction must be in [0, 1], got " + memoryUsedFraction);
        }
        tasks = sorted(tasks);
        snapshots = sorted(snapshots);
        for (Map.Entry<String, TaskInfo> e : tasks.entrySet()) {
            if (!e.getKey().equals(e.getValue().taskId())) {
                throw new IllegalArgumentException("task map key " + e.getKey() + " != taskId " + e.getValue().taskId());
            }
        }
    }

    /** Builds a state from lists (convenient for the agent and for tests). */
    public static SchedulerState of(long nowMs, long cycleMs, List<TaskInfo> tasks,
                                    List<TaskSnapshot> snapshots, double memoryUsedFraction) {
        Map<String, TaskInfo> t = new TreeMap<>();
        for (TaskInfo info : tasks) {
            if (t.put(info.taskId(), info) != null) {
                throw new IllegalArgumentException("duplicate task id " + info.taskId());
            }
        }
        Map<String, TaskSnapshot> s = new TreeMap<>();
        for (TaskSnapshot snap : snapshots) {
            s.put(snap.taskId(), snap);
        }
        return new SchedulerState(nowMs, cycleMs, t, s, memoryUsedFraction);
    }

    /** The snapshot of a task, or {@link TaskSnapshot#idle} if none was collected. */
    public TaskSnapshot snapshot(String taskId) {
        TaskSnapshot s = snapshots.get(taskId);
        return s != null ? s : TaskSnapshot.idle(taskId);
    }

    public boolean runnable(String taskId) {
        return snapshot(taskId).runnable();
    }

    /** All task ids, sorted. */
    public List<String> taskIds() {
        return List.copyOf(tasks.keySet());
    }

    /** Task ids that have input to process, sorted. */
    public List<String> runnableTaskIds() {
        List<String> out = new ArrayList<>();
        for (String id : tasks.keySet()) {
            if (runnable(id)) {
                out.add(id);
            }
        }
        return out;
    }

    private static <V> Map<String, V> sorted(Map<String, V> m) {
        Objects.requireNonNull(m);
        return Collections.unmodifiableSortedMap(new TreeMap<>(m));
    }
}
