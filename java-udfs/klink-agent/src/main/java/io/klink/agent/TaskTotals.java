package io.klink.agent;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * What every task of one run read, wrote and cost, for {@code <run_dir>/tasks.csv} (a simulator is calibrated from
 * it: CPU per record, selectivity). Counted for any policy, {@code default} included, from the control's activation
 * to its deactivation, with the probes the scheduler's cycle reads. Scheduler thread only.
 *
 * <p>A task registered during the run counts from zero: all its work belongs to the run. The scheduler thread looks
 * at the tasks once a second ({@link #observe}); a task that ends before the run keeps what the last look saw, at most
 * about a second before its end (its counters and its CPU time from the same moment).
 */
final class TaskTotals {

    static final String FILE_NAME = "tasks.csv";
    static final String CSV_HEADER = "task,query,role,kind,subtask,records_in,records_out,cpu_ns,bytes_in";

    /** One look at a task's cumulative counters; {@code cpuNs} −1 where the JVM cannot measure thread CPU. */
    private record Reading(long recordsIn, long recordsOut, long cpuNs, long bytesIn) {
        static final Reading NOTHING_YET = new Reading(0, 0, 0, 0);
    }

    private static final class Tally {
        final TaskHandle task;
        final Reading atStart;
        Reading latest;

        Tally(TaskHandle task, Reading atStart, Reading latest) {
            this.task = task;
            this.atStart = atStart;
            this.latest = latest;
        }
    }

    private final ToLongFunction<Thread> cpuTime;
    private final Map<String, Tally> byTaskId = new LinkedHashMap<>();

    /** Starts counting: the tasks registered now are counted from their values now. */
    TaskTotals(List<TaskHandle> registered, ToLongFunction<Thread> cpuTime) {
        this.cpuTime = cpuTime;
        for (TaskHandle h : registered) {
            Reading now = read(h);
            byTaskId.put(h.info.taskId(), new Tally(h, now, now));
        }
    }

    /** Takes the registered tasks' current values; a task seen for the first time is counted from zero. */
    synchronized void observe(List<TaskHandle> registered) {
        for (TaskHandle h : registered) {
            Reading now = read(h);
            Tally tally = byTaskId.computeIfAbsent(h.info.taskId(), id -> new Tally(h, Reading.NOTHING_YET, null));
            // A thread that ended since the last look has no CPU time any more: that look stands.
            boolean threadEnded = now.cpuNs() < 0 && tally.latest != null && tally.latest.cpuNs() >= 0;
            if (!threadEnded) {
                tally.latest = now;
            }
        }
    }

    /** The run ended: a last look at the tasks still registered, then one row per task counted, as tasks.csv. */
    synchronized void finish(List<TaskHandle> registered, RunOutput output) {
        observe(registered);
        for (Tally tally : byTaskId.values()) {
            output.append(FILE_NAME, CSV_HEADER, row(tally));
        }
    }

    private Reading read(TaskHandle h) {
        return new Reading(h.probe.recordsIn(), h.probe.recordsOut(), cpuTime.applyAsLong(h.thread), h.probe.bytesIn());
    }

    private static String row(Tally tally) {
        TaskHandle h = tally.task;
        Reading start = tally.atStart;
        Reading end = tally.latest;
        long cpuNs = start.cpuNs() < 0 || end.cpuNs() < 0 ? -1 : end.cpuNs() - start.cpuNs();
        return String.join(",", h.label, csvSafe(h.info.queryId()), csvSafe(TaskNames.role(h.info.vertexName())),
                TaskNames.kind(h.info.isSource(), h.info.isWindow()), Integer.toString(h.info.subtaskIndex()),
                Long.toString(end.recordsIn() - start.recordsIn()), Long.toString(end.recordsOut() - start.recordsOut()),
                Long.toString(cpuNs), Long.toString(end.bytesIn() - start.bytesIn()));
    }

    private static String csvSafe(String field) {
        return field.replace(',', '_').replace('"', '_').replace('\n', ' ');
    }
}
