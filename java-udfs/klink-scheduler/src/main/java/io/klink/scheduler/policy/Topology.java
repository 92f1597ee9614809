package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.TaskInfo;
import io.klink.scheduler.TaskSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The per-cycle view of a {@link SchedulerState} grouped by query: pipelines as ordered stages,
 * deadlines, watermarks and join inputs. Package-private helper shared by the query-level policies.
 *
 * <p>Scheduling units: every query that has a window task, plus every query that neither has one
 * nor feeds a join (a stateless pipeline). A query that only feeds a join (no window of its own) is
 * scheduled as part of that join's unit.
 */
final class Topology {

    /**
     * One step of a query's pipeline: the parallel subtasks of one vertex, aggregated; {@code local} unless
     * every one of them runs on another node (forwarded, {@link SchedulerState#remoteTaskIds}).
     */
    record Stage(String queryId, int stage, List<String> taskIds, long queued, double costNs,
                 double selectivity, boolean source, boolean window, boolean sink, boolean local) {
    }

    private static final Comparator<TaskInfo> UPSTREAM_FIRST = Comparator
            .comparingInt(TaskInfo::stage).thenComparingInt(TaskInfo::subtaskIndex).thenComparing(TaskInfo::taskId);

    private final SchedulerState state;
    private final Map<String, List<TaskInfo>> byQuery = new TreeMap<>();
    private final Map<String, List<String>> inputs = new TreeMap<>();
    private final Map<String, List<String>> consumers = new TreeMap<>();
    private final Map<String, List<Stage>> stages = new TreeMap<>();
    private final List<String> units = new ArrayList<>();

    private Topology(SchedulerState state) {
        this.state = state;
        for (TaskInfo t : state.tasks().values()) {
            byQuery.computeIfAbsent(t.queryId(), k -> new ArrayList<>()).add(t);
        }
        for (List<TaskInfo> list : byQuery.values()) {
            list.sort(UPSTREAM_FIRST);
        }
        for (Map.Entry<String, List<TaskInfo>> e : byQuery.entrySet()) {
            Set<String> in = new TreeSet<>();
            for (TaskInfo t : e.getValue()) {
                for (String u : t.upstreamQueryIds()) {
                    if (!u.equals(e.getKey()) && byQuery.containsKey(u)) {
                        in.add(u);
                    }
                }
            }
            inputs.put(e.getKey(), List.copyOf(in));
            for (String u : in) {
                consumers.computeIfAbsent(u, k -> new ArrayList<>()).add(e.getKey());
            }
        }
        for (String q : byQuery.keySet()) {
            stages.put(q, aggregate(q));
            if (hasWindow(q) || !consumers.containsKey(q)) {
                units.add(q);
            }
        }
    }

    static Topology of(SchedulerState state) {
        return new Topology(state);
    }

    SchedulerState state() {
        return state;
    }

    /** All query ids, sorted. */
    Set<String> queries() {
        return byQuery.keySet();
    }

    /** Scheduling units (see class comment), sorted. */
    List<String> units() {
        return units;
    }

    /** The scheduling unit a task belongs to: its query if that is a unit, else the join its query feeds. */
    String unitOf(String taskId) {
        String q = state.tasks().get(taskId).queryId();
        for (int depth = 0; depth < byQuery.size() && !units.contains(q) && !consumers(q).isEmpty(); depth++) {
            q = consumers(q).get(0);
        }
        return q;
    }

    /** Tasks of a query, upstream first. */
    List<TaskInfo> tasks(String q) {
        return byQuery.getOrDefault(q, List.of());
    }

    /** Join inputs of q (queries feeding q's join tasks), sorted; empty if q is not a join. */
    List<String> inputs(String q) {
        return inputs.getOrDefault(q, List.of());
    }

    /** The streams whose SWMs q's windows wait for: its join inputs, or q itself. */
    List<String> swmInputs(String q) {
        List<String> in = inputs(q);
        return in.isEmpty() ? List.of(q) : in;
    }

    /** Joins that q feeds, sorted. */
    List<String> consumers(String q) {
        return consumers.getOrDefault(q, List.of());
    }

    boolean hasWindow(String q) {
        for (TaskInfo t : tasks(q)) {
            if (t.isWindow()) {
                return true;
            }
        }
        return false;
    }

    /** Earliest next window deadline over q's window tasks, or {@link TaskSnapshot#NO_DEADLINE}. */
    long deadline(String q) {
        long d = TaskSnapshot.NO_DEADLINE;
        for (TaskInfo t : tasks(q)) {
            if (t.isWindow()) {
                d = Math.min(d, state.snapshot(t.taskId()).nextWindowDeadline());
            }
        }
        return d;
    }

    /**
     * Input watermark of q's window operator: the minimum over its window subtasks
     * ({@link TaskSnapshot#NO_WATERMARK} if any has none, or q has no window task).
     */
    long windowWatermark(String q) {
        long wm = Long.MAX_VALUE;
        boolean any = false;
        for (TaskInfo t : tasks(q)) {
            if (t.isWindow()) {
                any = true;
                wm = Math.min(wm, state.snapshot(t.taskId()).currentInputWatermark());
            }
        }
        return any ? wm : TaskSnapshot.NO_WATERMARK;
    }

    /**
     * The watermark q has ingested: the minimum over the subtasks of its most upstream stage that
     * reports one (normally the sources); {@link TaskSnapshot#NO_WATERMARK} if no stage does.
     */
    long ingestWatermark(String q) {
        for (Stage s : stages(q)) {
            long wm = Long.MAX_VALUE;
            for (String id : s.taskIds()) {
                wm = Math.min(wm, state.snapshot(id).currentInputWatermark());
            }
            if (wm != TaskSnapshot.NO_WATERMARK) {
                return wm;
            }
        }
        return TaskSnapshot.NO_WATERMARK;
    }

    /** Task ids of q's most upstream stage (the ones whose pausing stops q's ingestion). */
    List<String> ingestTaskIds(String q) {
        List<Stage> s = stages(q);
        return s.isEmpty() ? List.of() : s.get(0).taskIds();
    }

    /** q's pipeline as aggregated stages, upstream first. */
    List<Stage> stages(String q) {
        return stages.getOrDefault(q, List.of());
    }

    /** The path an input stream u's records take to q's output: u's stages, then q's (u may equal q). */
    List<Stage> path(String u, String q) {
        if (u.equals(q)) {
            return stages(q);
        }
        List<Stage> p = new ArrayList<>(stages(u));
        p.addAll(stages(q));
        return p;
    }

    /**
     * The path from stage {@code fromStage} of q to the output: q's stages at or after it, then,
     * if q feeds a join, the first such join's stages.
     */
    List<Stage> pathFrom(String q, int fromStage) {
        List<Stage> p = new ArrayList<>();
        for (Stage s : stages(q)) {
            if (s.stage() >= fromStage) {
                p.add(s);
            }
        }
        List<String> c = consumers(q);
        if (!c.isEmpty()) {
            p.addAll(stages(c.get(0)));
        }
        return p;
    }

    /** q's task ids, most downstream stage first (then subtask index, then id). */
    List<String> downstreamFirst(String q) {
        List<TaskInfo> list = new ArrayList<>(tasks(q));
        list.sort(Comparator.comparingInt(TaskInfo::stage).reversed()
                .thenComparingInt(TaskInfo::subtaskIndex).thenComparing(TaskInfo::taskId));
        List<String> ids = new ArrayList<>(list.size());
        for (TaskInfo t : list) {
            ids.add(t.taskId());
        }
        return ids;
    }

    /**
     * The tasks of a unit in the order a policy should start them: the unit's own tasks downstream
     * first, then each of the given inputs' tasks downstream first, then any remaining (also nested)
     * join inputs.
     */
    List<String> unitTasks(String unit, List<String> orderedInputs) {
        List<String> ids = new ArrayList<>();
        Set<String> seen = new TreeSet<>();
        seen.add(unit);
        ids.addAll(downstreamFirst(unit));
        for (String u : orderedInputs) {
            addInputTasks(u, ids, seen);
        }
        for (String u : inputs(unit)) {
            addInputTasks(u, ids, seen);
        }
        return ids;
    }

    /** An input's tasks, then (for nested joins) its own inputs', each query once. */
    private void addInputTasks(String q, List<String> ids, Set<String> seen) {
        if (!seen.add(q)) {
            return;
        }
        ids.addAll(downstreamFirst(q));
        for (String u : inputs(q)) {
            addInputTasks(u, ids, seen);
        }
    }

    /** Oldest known queued-record arrival over q's tasks, or {@link TaskSnapshot#UNKNOWN_ARRIVAL}. */
    long oldestArrival(String q) {
        long oldest = Long.MAX_VALUE;
        for (TaskInfo t : tasks(q)) {
            long a = state.snapshot(t.taskId()).oldestQueuedArrivalMs();
            if (a >= 0) {
                oldest = Math.min(oldest, a);
            }
        }
        return oldest == Long.MAX_VALUE ? TaskSnapshot.UNKNOWN_ARRIVAL : oldest;
    }

    /** Drain cost (Eq. 1's cost^q(t)) of a path, in ms. */
    static double drainCostMs(List<Stage> path) {
        return drainCostMs(path, false);
    }

    /**
     * CPU time (ms) to drain the path on this node: its records still flow through the stages on other nodes,
     * whose cost those nodes pay.
     */
    static double localDrainCostMs(List<Stage> path) {
        return drainCostMs(path, true);
    }

    private static double drainCostMs(List<Stage> path, boolean localOnly) {
        long[] queued = new long[path.size()];
        double[] cost = new double[path.size()];
        double[] sel = new double[path.size()];
        for (int i = 0; i < path.size(); i++) {
            Stage s = path.get(i);
            queued[i] = s.queued();
            cost[i] = localOnly && !s.local() ? 0.0 : s.costNs();
            sel[i] = s.selectivity();
        }
        return KlinkMath.drainCostNs(queued, cost, sel) / 1e6;
    }

    private List<Stage> aggregate(String q) {
        Map<Integer, List<TaskInfo>> byStage = new TreeMap<>();
        for (TaskInfo t : tasks(q)) {
            byStage.computeIfAbsent(t.stage(), k -> new ArrayList<>()).add(t);
        }
        List<Stage> out = new ArrayList<>();
        for (Map.Entry<Integer, List<TaskInfo>> e : byStage.entrySet()) {
            List<String> ids = new ArrayList<>();
            long queued = 0;
            double costSum = 0.0;
            int costN = 0;
            double selSum = 0.0;
            boolean source = false;
            boolean window = false;
            boolean sink = false;
            boolean local = false;
            for (TaskInfo t : e.getValue()) {
                TaskSnapshot s = state.snapshot(t.taskId());
                ids.add(t.taskId());
                queued += s.queuedRecords();
                if (s.meanCostNanosPerRecord() > 0) {
                    costSum += s.meanCostNanosPerRecord();
                    costN++;
                }
                selSum += s.selectivityOrOne();
                source |= t.isSource();
                window |= t.isWindow();
                sink |= t.isSink();
                local |= state.local(t.taskId());
            }
            int n = e.getValue().size();
            out.add(new Stage(q, e.getKey(), List.copyOf(ids), queued, costN == 0 ? 0.0 : costSum / costN,
                    selSum / n, source, window, sink, local));
        }
        return List.copyOf(out);
    }
}
