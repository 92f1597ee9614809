package io.klink.agent;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.SchedulingPolicy;
import io.klink.scheduler.TaskInfo;
import io.klink.scheduler.TaskSnapshot;
import io.klink.scheduler.WindowProgress;
import io.klink.scheduler.policy.Policies;
import io.klink.scheduler.policy.PolicyConfig;
import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The scheduling cycle (paper §5): collect per-task data, ask the policy, pause the rest, resume the
 * chosen. One instance per TaskManager, driven by {@link SchedulerThread}; everything here runs on
 * that one thread.
 */
public final class Scheduler {

    public static final String CSV_HEADER = "time,policy,tasks,running,paused,cycle_ns,decisions";

    private final Supplier<List<TaskHandle>> registry;
    private final ToLongFunction<Thread> cpuTime;
    private final int defaultCores;

    private ControlFile control = ControlFile.DEFAULT;
    private SchedulingPolicy policy;
    private long cycleMs = PolicyConfig.DEFAULT_CYCLE_MS;
    private int maxRunning;
    private BufferedWriter csv;
    private long cycles;
    private long suspensionsAtActivation;
    private int maxReporting;

    public Scheduler(Supplier<List<TaskHandle>> registry, ToLongFunction<Thread> cpuTime, int defaultCores) {
        this.registry = registry;
        this.cpuTime = cpuTime;
        this.defaultCores = defaultCores;
        this.maxRunning = defaultCores;
    }

    /** The TaskManager's scheduler: tasks from {@link TaskGate}, CPU time from the JVM. */
    public static Scheduler forTaskManager() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        boolean cpu = mx.isThreadCpuTimeSupported();
        if (cpu && !mx.isThreadCpuTimeEnabled()) {
            mx.setThreadCpuTimeEnabled(true);
        }
        return new Scheduler(TaskGate::tasks, cpu ? t -> mx.getThreadCpuTime(t.getId()) : t -> -1L,
                Runtime.getRuntime().availableProcessors());
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

    public ControlFile control() {
        return control;
    }

    /**
     * Switches to a control (a new run). {@code default} (or null) means: pause nothing, resume all now.
     *
     * @throws IllegalArgumentException if the policy or a parameter is invalid; the scheduler is then on default
     */
    public void apply(ControlFile next) {
        deactivate();
        if (next == null || next.isDefault()) {
            return;
        }
        SchedulingPolicy p = Policies.create(next.policy(), next.params());
        PolicyConfig config = PolicyConfig.parse(next.params());
        if (p.neverPauses()) {
            control = next;
            return;
        }
        try {
            Files.createDirectories(next.runDir());
            Path file = next.runDir().resolve("scheduler.csv");
            boolean fresh = !Files.exists(file) || Files.size(file) == 0;
            csv = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            if (fresh) {
                csv.write(CSV_HEADER);
                csv.newLine();
                csv.flush();
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write " + next.runDir() + "/scheduler.csv: " + e.getMessage());
        }
        for (TaskHandle h : registry.get()) {
            h.lastIn = h.lastOut = h.lastCpuNs = -1;
        }
        policy = p;
        control = next;
        cycleMs = config.cycleMs();
        maxRunning = next.params().containsKey("C") ? config.cores() : defaultCores;
        cycles = 0;
        suspensionsAtActivation = TaskGate.suspensions();
        maxReporting = 0;
        TaskGate.setActive(true);
    }

    /** Back to plain Flink: nobody pauses, every suspended task is resumed at once. */
    public void deactivate() {
        TaskGate.setActive(false);
        int resumed = 0;
        for (TaskHandle h : registry.get()) {
            if (h.resume()) {
                resumed++;
            }
        }
        long suspensions = TaskGate.suspensions() - suspensionsAtActivation;
        if (policy != null) {
            System.out.println("klink-scheduler: policy " + policy.name() + " ran " + cycles + " cycles; tasks "
                    + "suspended themselves " + suspensions + " times; " + resumed + " resumed now; up to "
                    + maxReporting + " tasks reported window progress");
        }
        policy = null;
        control = ControlFile.DEFAULT;
        cycleMs = PolicyConfig.DEFAULT_CYCLE_MS;
        maxRunning = defaultCores;
        if (csv != null) {
            try {
                csv.close();
            } catch (IOException ignored) {
                // the run's directory may be gone already
            }
            csv = null;
        }
    }

    /** One cycle; returns the chosen task ids (empty if no policy is active). */
    public List<String> cycle(long nowMs) {
        if (policy == null) {
            return List.of();
        }
        long t0 = System.nanoTime();
        List<TaskHandle> handles = registry.get();
        List<TaskInfo> infos = new ArrayList<>(handles.size());
        List<TaskSnapshot> snaps = new ArrayList<>(handles.size());
        for (TaskHandle h : handles) {
            infos.add(h.info);
            snaps.add(collect(h));
        }
        int reporting = 0;
        for (TaskSnapshot snap : snaps) {
            if (snap.hasWatermark() || snap.hasDeadline()) {
                reporting++;
            }
        }
        maxReporting = Math.max(maxReporting, reporting);
        SchedulerState state = SchedulerState.of(nowMs, cycleMs, infos, snaps, memoryUsedFraction());
        List<String> chosen = policy.choose(state, maxRunning);
        Set<String> run = new HashSet<>(chosen);
        int running = 0;
        int paused = 0;
        StringBuilder decisions = new StringBuilder();
        for (TaskHandle h : handles) {
            if (run.contains(h.info.taskId())) {
                h.resume();
                running++;
                if (decisions.length() > 0) {
                    decisions.append(';');
                }
                decisions.append(h.label);
            } else {
                h.requestPause();
                paused++;
            }
        }
        long cycleNs = System.nanoTime() - t0;
        cycles++;
        writeRow(nowMs, handles.size(), running, paused, cycleNs, decisions.toString());
        return chosen;
    }

    private TaskSnapshot collect(TaskHandle h) {
        long in = h.probe.recordsIn();
        long out = h.probe.recordsOut();
        long cpu = cpuTime.applyAsLong(h.thread);
        long queued = Math.max(0, h.probe.queuedBuffers());
        long dIn = h.lastIn < 0 ? 0 : Math.max(0, in - h.lastIn);
        long dOut = h.lastOut < 0 ? 0 : Math.max(0, out - h.lastOut);
        long dCpu = h.lastCpuNs < 0 || cpu < 0 ? -1 : cpu - h.lastCpuNs;
        long processed = dIn > 0 ? dIn : dOut;
        if (processed > 0 && dCpu >= 0) {
            h.meanCostNs = (double) dCpu / processed;
        }
        if (dIn > 0) {
            h.selectivity = (double) dOut / dIn;
        }
        h.lastIn = in;
        h.lastOut = out;
        h.lastCpuNs = cpu;
        long watermark = TaskSnapshot.NO_WATERMARK;
        long deadline = TaskSnapshot.NO_DEADLINE;
        WindowProgress.Progress progress = WindowProgress.of(h.thread);
        if (progress != null) {
            watermark = progress.watermark();
            deadline = progress.nextDeadline();
        }
        // A source's backlog sits in Kafka, out of sight: treat it as always having input.
        boolean runnable = h.info.isSource() || queued > 0 || dIn > 0;
        return new TaskSnapshot(h.info.taskId(), queued, in, out, h.meanCostNs, h.selectivity, watermark, deadline,
                TaskSnapshot.UNKNOWN_ARRIVAL, runnable);
    }

    private static double memoryUsedFraction() {
        Runtime rt = Runtime.getRuntime();
        double used = rt.totalMemory() - rt.freeMemory();
        double f = used / rt.maxMemory();
        return Double.isFinite(f) ? Math.min(1.0, Math.max(0.0, f)) : 0.0;
    }

    private void writeRow(long nowMs, int tasks, int running, int paused, long cycleNs, String decisions) {
        if (csv == null) {
            return;
        }
        try {
            csv.write(nowMs + "," + policy.name() + "," + tasks + "," + running + "," + paused + "," + cycleNs + ","
                    + decisions.replace(',', '_'));
            csv.newLine();
            csv.flush();
        } catch (IOException e) {
            System.err.println("klink-scheduler: cannot append to scheduler.csv (" + e.getMessage()
                    + "); no more rows for this run");
            try {
                csv.close();
            } catch (IOException ignored) {
                // nothing more to do
            }
            csv = null;
        }
    }

    public long cycles() {
        return cycles;
    }
}
