package io.klink.scheduler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

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
 * @param remoteTaskIds      tasks of this node's queries that run on other nodes, their info and last snapshot
 *                           forwarded from there (distributed Klink, paper §4); they complete the pipelines a
 *                           policy ranks, but only this node's own tasks take its CPU. Empty on one node.
 */
public record SchedulerState(
        long nowMs,
        long cycleMs,
        Map<String, TaskInfo> tasks,
        Map<String, TaskSnapshot> snapshots,
        double memoryUsedFraction,
        Set<String> remoteTaskIds) {

    public SchedulerState {
        if (cycleMs <= 0) {
            throw new IllegalArgumentException("cycleMs (r) must be > 0, got " + cycleMs);
        }
        if (!(memoryUsedFraction >= 0.0 && memoryUsedFraction <= 1.0)) {
            throw new IllegalArgumentException("memoryUsedFraction must be in [0, 1], got " + memoryUsedFraction);
        }
        tasks = sorted(tasks);
        snapshots = sorted(snapshots);
        remoteTaskIds = Collections.unmodifiableSortedSet(new TreeSet<>(remoteTaskIds == null ? Set.of() : remoteTaskIds));
        if (!tasks.keySet().containsAll(remoteTaskIds)) {
            throw new IllegalArgumentException("remote task ids must be registered tasks: " + remoteTaskIds);
        }
        for (Map.Entry<String, TaskInfo> e : tasks.entrySet()) {
            if (!e.getKey().equals(e.getValue().taskId())) {
                throw new IllegalArgumentException("task map key " + e.getKey() + " != taskId " + e.getValue().taskId());
            }
        }
    }

    /** A state of one node's own tasks only. */
    public SchedulerState(long nowMs, long cycleMs, Map<String, TaskInfo> tasks, Map<String, TaskSnapshot> snapshots,
                          double memoryUsedFraction) {
        this(nowMs, cycleMs, tasks, snapshots, memoryUsedFraction, Set.of());
    }

    /** Builds a state from lists (convenient for the agent and for tests). */
    public static SchedulerState of(long nowMs, long cycleMs, List<TaskInfo> tasks,
                                    List<TaskSnapshot> snapshots, double memoryUsedFraction) {
        return of(nowMs, cycleMs, tasks, snapshots, memoryUsedFraction, Set.of());
    }

    /** As {@link #of(long, long, List, List, double)}, with tasks forwarded from other nodes. */
    public static SchedulerState of(long nowMs, long cycleMs, List<TaskInfo> tasks, List<TaskSnapshot> snapshots,
                                    double memoryUsedFraction, Set<String> remoteTaskIds) {
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
        return new SchedulerState(nowMs, cycleMs, t, s, memoryUsedFraction, remoteTaskIds);
    }

    /** True for a task that runs on this node (its CPU is this node's to give). */
    public boolean local(String taskId) {
        return !remoteTaskIds.contains(taskId);
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
