package io.klink.agent;

import io.klink.scheduler.LiveHeap;
import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.SchedulingPolicy;
import io.klink.scheduler.TaskInfo;
import io.klink.scheduler.TaskSnapshot;
import io.klink.scheduler.WindowProgress;
import io.klink.scheduler.policy.EstimatorRecord;
import io.klink.scheduler.policy.KlinkPolicy;
import io.klink.scheduler.policy.Policies;
import io.klink.scheduler.policy.PolicyConfig;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The scheduling cycle (paper §5): collect per-task data, ask the policy, pause (or, with
 * {@link Enforcement#PRIORITY}, demote) the rest, resume the chosen. One instance per TaskManager: {@link SchedulerThread}
 * runs the cycles, {@link HarnessThread} applies klinkctl's control and hands the rows on. What changes the state is
 * synchronized; posting rows is not ({@link RunOutput#flush()}), so a slow klinkctl never holds a cycle up.
 */
public final class Scheduler {

    public static final String CSV_HEADER =
            "time,policy,tasks,running,paused,cycle_ns,decisions,why,memory_used,cycle_cpu_ns,gc_ms,remote_tasks,"
            + "source_records_in,task_cpu_ns,safepoint_ms";
    public static final String ESTIMATOR_HEADER = EstimatorRecord.CSV_HEADER;

    private static final List<GarbageCollectorMXBean> GC_BEANS = ManagementFactory.getGarbageCollectorMXBeans();

    private final Supplier<List<TaskHandle>> registry;
    private final ToLongFunction<Thread> cpuTime;
    private final int defaultCores;
    private final Function<RunControl, RunOutput> outputs;

    private volatile RunControl control = RunControl.DEFAULT;
    private volatile SchedulingPolicy policy;
    private volatile long cycleMs = PolicyConfig.DEFAULT_CYCLE_MS;
    private volatile int maxRunning;
    private Enforcement enforcement = Enforcement.PAUSE;
    /** Distributed Klink: exchange task snapshots with the other TaskManagers every cycle ({@link ForwardedTasks}). */
    private boolean forward;
    /** Where the run's rows go; null without a run. */
    private volatile RunOutput output;
    /** The run's per-task totals (tasks.csv), for every policy; null without a run. */
    private volatile TaskTotals totals;
    private long cycles;
    private long suspensionsAtActivation;
    private int maxReporting;
    /** The JVM's collection time since the previous cycle: see {@link #gcTotalMs}. */
    private final SinceLastCycle collections = new SinceLastCycle();
    /** The JVM's stops of the world since the previous cycle ({@link Safepoints}). */
    private final SinceLastCycle stops = new SinceLastCycle();

    public Scheduler(Supplier<List<TaskHandle>> registry, ToLongFunction<Thread> cpuTime, int defaultCores,
                     Function<RunControl, RunOutput> outputs) {
        this.registry = registry;
        this.cpuTime = cpuTime;
        this.defaultCores = defaultCores;
        this.outputs = outputs;
        this.maxRunning = defaultCores;
    }

    /** The TaskManager's scheduler: tasks from {@link TaskGate}, CPU time from the JVM, rows to the harness. */
    public static Scheduler forTaskManager(HarnessChannel channel) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        boolean cpu = mx.isThreadCpuTimeSupported();
        if (cpu && !mx.isThreadCpuTimeEnabled()) {
            mx.setThreadCpuTimeEnabled(true);
        }
        return new Scheduler(TaskGate::tasks, cpu ? t -> mx.getThreadCpuTime(t.getId()) : t -> -1L,
                Runtime.getRuntime().availableProcessors(), run -> channel.output(run.run()));
    }

    public boolean active() {
        return policy != null;
    }

    public long cycleMs() {
        return cycleMs;
    }

    public int maxRunning() {
        return maxRunning;
    }

    public RunControl control() {
        return control;
    }

    /**
     * Switches to a control (a new run). {@code default} (or null) means: pause nothing, resume all now. Any
     * policy with a run counts the tasks' totals until {@link #deactivate()} sends them as tasks.csv.
     *
     * @throws IllegalArgumentException if the policy or a parameter is invalid; the scheduler is then on default
     */
    public synchronized void apply(RunControl next) {
        deactivate();
        if (next == null) {
            return;
        }
        if (next.isDefault()) {
            startRun(next);
            return;
        }
        Map<String, String> params = withCpuBudget(next.params());
        SchedulingPolicy p = Policies.create(next.policy(), params);
        PolicyConfig config = PolicyConfig.parse(params);
        Enforcement e = Enforcement.parse(next.params().get("enforce"));
        if (e == Enforcement.PRIORITY && !Enforcement.priorityWorks()) {
            throw new IllegalArgumentException("enforce=priority: Thread.setPriority does not change OS priorities"
                    + " here (the TaskManager needs -XX:ThreadPriorityPolicy=1 and root or CAP_SYS_NICE)");
        }
        if (p.neverPauses()) {
            control = next;
            startRun(next);
            return;
        }
        for (TaskHandle h : registry.get()) {
            h.lastIn = h.lastOut = h.lastCpuNs = -1;
        }
        policy = p;
        enforcement = e;
        forward = Boolean.parseBoolean(next.params().get(ForwardedTasks.PARAMETER));
        control = next;
        cycleMs = config.cycleMs();
        maxRunning = next.params().containsKey("C") ? config.cores() : defaultCores;
        cycles = 0;
        collections.reset();
        stops.reset();
        suspensionsAtActivation = TaskGate.suspensions();
        maxReporting = 0;
        startRun(next);
        TaskGate.setActive(true);
    }

    private void startRun(RunControl run) {
        if (run.run() != null) {
            output = outputs.apply(run);
            totals = new TaskTotals(registry.get(), cpuTime);
        }
    }

    /** Hands the rows collected since the last flush to the run's output (HarnessThread: once a second). */
    public void flush() {
        RunOutput current = output;
        if (current != null) {
            current.flush();
        }
    }

    /**
     * Takes the tasks' counters for the run's totals (HarnessThread: once a second, whatever the policy). Not under
     * the scheduler's lock: a preempted harness thread holding it would make the cycle wait behind the tasks.
     */
    public void observeTasks() {
        TaskTotals current = totals;
        if (current != null) {
            current.observe(registry.get());
        }
    }

    /** The run's parameters plus {@code cpu}, the CPU this TaskManager really has, unless the run gives it. */
    private static Map<String, String> withCpuBudget(Map<String, String> params) {
        if (params.containsKey("cpu")) {
            return params;
        }
        Map<String, String> out = new java.util.HashMap<>(params);
        out.put("cpu", Double.toString(CpuBudget.cores()));
        return out;
    }

    /** Back to plain Flink: nobody pauses, every suspended task is resumed at once. */
    public synchronized void deactivate() {
        TaskGate.setActive(false);
        int resumed = 0;
        for (TaskHandle h : registry.get()) {
            if (h.resume() | h.promote()) {
                resumed++;
            }
        }
        long suspensions = TaskGate.suspensions() - suspensionsAtActivation;
        if (policy instanceof KlinkPolicy klink) {
            klink.finish(); // predictions still pending: skipped rows, so every prediction has its row
            writeEstimatorRows(klink.drainEstimatorRecords(), klink.confidence());
        }
        if (policy != null) {
            System.out.println("klink-scheduler: policy " + policy.name() + " ran " + cycles + " cycles; tasks "
                    + "suspended themselves " + suspensions + " times; " + resumed + " resumed now; up to "
                    + maxReporting + " tasks reported window progress");
        }
        policy = null;
        enforcement = Enforcement.PAUSE;
        forward = false;
        control = RunControl.DEFAULT;
        cycleMs = PolicyConfig.DEFAULT_CYCLE_MS;
        maxRunning = defaultCores;
        if (output != null) {
            RunOutput ended = output;
            output = null;
            totals.finish(registry.get(), ended);
            totals = null;
            ended.close();
        }
    }

    /** One cycle; returns the chosen task ids (empty if no policy is active). */
    public synchronized List<String> cycle(long nowMs) {
        if (policy == null) {
            return List.of();
        }
        long t0 = System.nanoTime();
        long cpu0 = cpuTime.applyAsLong(Thread.currentThread());
        long gcMs = collections.next(gcTotalMs());
        long safepointMs = stops.next(Safepoints.totalMs());
        List<TaskHandle> handles = registry.get();
        List<TaskInfo> infos = new ArrayList<>(handles.size());
        List<TaskSnapshot> snaps = new ArrayList<>(handles.size());
        // What the previous cycle's choice got done: a chosen pipeline that reads nothing leaves its CPU idle.
        long sourceRecordsIn = 0;
        long taskCpuNs = 0;
        for (TaskHandle h : handles) {
            infos.add(h.info);
            snaps.add(collect(h, nowMs));
            sourceRecordsIn += h.info.isSource() ? h.cycleRecordsIn : 0;
            taskCpuNs += h.cycleCpuNs;
        }
        int reporting = 0;
        for (TaskSnapshot snap : snaps) {
            if (snap.hasWatermark() || snap.hasDeadline()) {
                reporting++;
            }
        }
        maxReporting = Math.max(maxReporting, reporting);
        double memoryUsed = LiveHeap.fraction();
        Set<String> remote = forward ? addForwarded(infos, snaps) : Set.of();
        SchedulerState state = SchedulerState.of(nowMs, cycleMs, infos, snaps, memoryUsed, remote);
        // a pipeline spanning TaskManagers is chosen whole; this TaskManager runs its own part of it
        List<String> chosen = policy.choose(state, maxRunning).stream().filter(id -> !remote.contains(id)).toList();
        Set<String> run = new HashSet<>(chosen);
        int running = 0;
        int paused = 0;
        StringBuilder decisions = new StringBuilder();
        for (TaskHandle h : handles) {
            if (run.contains(h.info.taskId())) {
                h.resume();
                h.promote();
                running++;
                if (decisions.length() > 0) {
                    decisions.append(';');
                }
                decisions.append(h.label);
            } else {
                if (enforcement == Enforcement.PRIORITY) {
                    h.demote();
                } else {
                    h.requestPause();
                }
                paused++;
            }
        }
        long cycleNs = System.nanoTime() - t0;
        // The scheduler's own CPU: on a TaskManager capped at a fraction of a core it comes out of the tasks' budget.
        long cycleCpuNs = cpu0 < 0 ? -1 : cpuTime.applyAsLong(Thread.currentThread()) - cpu0;
        cycles++;
        output.append("scheduler.csv", CSV_HEADER, nowMs + "," + policy.name() + "," + handles.size() + "," + running + "," + paused + ","
                + cycleNs + "," + decisions.toString().replace(',', '_') + ","
                + policy.explainLastChoice().replace(',', '_') + "," + String.format(java.util.Locale.ROOT, "%.4f",
                memoryUsed) + "," + cycleCpuNs + "," + gcMs + "," + remote.size() + "," + sourceRecordsIn + "," + taskCpuNs
                + "," + safepointMs);
        if (policy instanceof KlinkPolicy klink) {
            writeEstimatorRows(klink.drainEstimatorRecords(), klink.confidence());
        }
        return chosen;
    }

    private TaskSnapshot collect(TaskHandle h, long nowMs) {
        long in = h.probe.recordsIn();
        long out = h.probe.recordsOut();
        long cpu = cpuTime.applyAsLong(h.thread);
        long queuedBytes = Math.max(0, h.probe.queuedBytes());
        long bytesIn = h.probe.bytesIn();
        long dIn = h.lastIn < 0 ? 0 : Math.max(0, in - h.lastIn);
        long dOut = h.lastOut < 0 ? 0 : Math.max(0, out - h.lastOut);
        long dCpu = h.lastCpuNs < 0 || cpu < 0 ? -1 : cpu - h.lastCpuNs;
        long dBytes = h.lastBytesIn < 0 ? 0 : Math.max(0, bytesIn - h.lastBytesIn);
        long processed = dIn > 0 ? dIn : dOut;
        if (processed > 0 && dCpu >= 0) {
            h.meanCostNs = (double) dCpu / processed;
        }
        if (dIn > 0) {
            h.selectivity = (double) dOut / dIn;
            if (dBytes > 0) {
                h.bytesPerRecord = (double) dBytes / dIn;
            }
        }
        h.cycleRecordsIn = dIn;
        h.cycleCpuNs = Math.max(0, dCpu);
        h.lastIn = in;
        h.lastOut = out;
        h.lastCpuNs = cpu;
        h.lastBytesIn = bytesIn;
        long watermark = TaskSnapshot.NO_WATERMARK;
        long deadline = TaskSnapshot.NO_DEADLINE;
        WindowProgress.Progress progress = WindowProgress.of(h.thread);
        if (progress != null) {
            watermark = progress.watermark();
            deadline = progress.nextDeadline();
        }
        long queued = h.info.isSource()
                ? h.backlog.update(nowMs, watermark, in) // in Kafka, out of Flink's sight: estimated
                : queuedRecords(queuedBytes, h.bytesPerRecord);
        // A source is runnable while it is behind; one that keeps up would hold a slot just waiting for data.
        boolean runnable = h.info.isSource() ? queued > 0 || watermark == TaskSnapshot.NO_WATERMARK
                : queuedBytes > 0 || dIn > 0;
        return new TaskSnapshot(h.info.taskId(), queued, in, out, h.meanCostNs, h.selectivity, watermark, deadline,
                h.arrivals.observe(nowMs, in, queued), runnable);
    }

    /**
     * Records (the unit of the per-record cost, Eq. 1) in the queued buffers: their bytes over the mean
     * record size seen so far; at least one while any byte waits, 0 before the size is known.
     */
    static long queuedRecords(long queuedBytes, double bytesPerRecord) {
        if (queuedBytes <= 0 || !(bytesPerRecord > 0)) {
            return 0;
        }
        return Math.max(1, Math.round(queuedBytes / bytesPerRecord));
    }

    /**
     * Milliseconds the JVM has spent collecting garbage. With the TaskManager's collectors (serial, parallel) a
     * collection stops every Java thread, this one included: a cycle that comes late by that much waited for the
     * JVM, not for the tasks it schedules. {@link Safepoints} counts every stop of the world, G1's remark too.
     */
    private static long gcTotalMs() {
        long total = 0;
        for (GarbageCollectorMXBean gc : GC_BEANS) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    /** A running total's increase from one cycle to the next: 0 at a run's first cycle, -1 while it is unknown. */
    private static final class SinceLastCycle {
        private long last = -1;

        long next(long total) {
            long since = total < 0 ? -1 : last < 0 ? 0 : total - last;
            last = total;
            return since;
        }

        void reset() {
            last = -1;
        }
    }

    /** Sends this TaskManager's tasks, adds the other TaskManagers' tasks of its queries; returns their ids. */
    private Set<String> addForwarded(List<TaskInfo> infos, List<TaskSnapshot> snaps) {
        Set<String> localIds = new HashSet<>();
        Set<String> queries = new HashSet<>();
        for (TaskInfo info : infos) {
            localIds.add(info.taskId());
            queries.add(info.queryId());
        }
        String others = output.exchange(ForwardedTasks.encode(infos, snaps));
        Set<String> remote = new HashSet<>();
        for (ForwardedTasks.Remote r : ForwardedTasks.decode(others, queries, localIds)) {
            infos.add(r.info());
            snaps.add(r.snapshot());
            remote.add(r.info().taskId());
        }
        return remote;
    }

    private void writeEstimatorRows(List<EstimatorRecord> records, double confidence) {
        for (EstimatorRecord r : records) {
            output.append("estimator.csv", ESTIMATOR_HEADER, r.csvRow(confidence));
        }
    }

    public long cycles() {
        return cycles;
    }
}
