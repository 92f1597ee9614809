package io.klink.sim;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.SchedulingPolicy;
import io.klink.scheduler.TaskInfo;
import io.klink.scheduler.TaskSnapshot;
import io.klink.scheduler.policy.EstimatorRecord;
import io.klink.scheduler.policy.KlinkPolicy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One TaskManager: its tasks, its CPU and its scheduler. Under {@code default} (the policy never pauses) the
 * OS shares the CPU among every runnable thread (processor sharing, each thread at most one core); otherwise
 * the policy chooses each cycle and only the chosen run ({@code pause}), or run first ({@code priority}).
 */
final class Node {

    private static final double NS_PER_MS = 1_000_000.0;
    /**
     * The live-heap fraction the collector's cost model reads is capped here: u/(1 − u) would divide by zero at a
     * full heap (the simulated heap may hold more than its size; the real TaskManager dies of OutOfMemoryError near
     * 0.99 instead: docs/simulator.md, "The cost of a full heap"). At the cap the collector takes 99 K times the
     * other CPU.
     */
    static final double GC_LIVE_FRACTION_CAP = 0.99;

    final List<SimTask> tasks = new ArrayList<>();
    private final SimSpec spec;
    private final SchedulingPolicy policy;  // null: plain Flink, nothing paused
    private final int maxRunning;
    private final int index;
    private final Forwarding forwarding;  // null: this node's scheduler sees its own tasks only
    private final Set<String> metricQueries = new HashSet<>();  // queries whose metrics window runs here
    private boolean[] chosen = new boolean[0];
    private double debtNs;  // scheduler and switching CPU not yet taken from the tasks
    private double quotaLeftNs;  // CPU the TaskManager may still use in this quota period
    private double backgroundNs;  // background work made by the tasks' work and not yet done
    private double otherDebtNs;  // other threads' CPU (otherThreadsShare) due: it preempts the tasks, not the scheduler
    private double otherNs;  // other threads' work made by the tasks' work and not yet due
    double gcNs;  // CPU the collector's cost of heap occupancy (gcPressure) has added, in all
    long cycles;
    /**
     * A cycle is due and has not run: the scheduler thread is one of the TaskManager's, so it waits out a
     * stop-the-world burst or an exhausted CPU quota like the tasks do (cycles due meanwhile are one cycle).
     */
    boolean cycleDue;

    Node(SimSpec spec, SchedulingPolicy policy, int maxRunning, int index, Forwarding forwarding) {
        this.spec = spec;
        this.policy = policy;
        this.maxRunning = maxRunning;
        this.index = index;
        this.forwarding = forwarding;
    }

    void add(SimTask task) {
        tasks.add(task);
        if (task.spec.metrics()) {
            metricQueries.add(task.info.queryId());
        }
        chosen = Arrays.copyOf(chosen, tasks.size());
        chosen[tasks.size() - 1] = true;  // tasks start running; the first cycle decides
    }

    boolean scheduled() {
        return policy != null;
    }

    /** One scheduling cycle (paper §5: collect, choose, pause/resume), as io.klink.agent.Scheduler.cycle. */
    void cycle(long now, Outputs out) {
        List<TaskInfo> infos = new ArrayList<>(tasks.size());
        List<TaskSnapshot> snaps = new ArrayList<>(tasks.size());
        Set<String> queries = new LinkedHashSet<>();
        for (SimTask t : tasks) {
            TaskSnapshot snap = t.snapshot(now);
            infos.add(t.info);
            snaps.add(snap);
            queries.add(t.info.queryId());
            if (forwarding != null) {
                forwarding.publish(snap);
            }
        }
        Set<String> remote = new HashSet<>();
        for (String query : forwarding == null ? Set.<String>of() : queries) {
            for (String id : forwarding.remoteTasks(query, index)) {
                infos.add(forwarding.info(id));
                snaps.add(forwarding.snapshot(id));
                remote.add(id);
            }
        }
        double memory = memoryUsedFraction();
        SchedulerState state = SchedulerState.of(now, cycleMs(), infos, snaps, memory, remote);
        Set<String> run = new HashSet<>(policy.choose(state, maxRunning));
        int running = 0;
        int resumed = 0;
        StringBuilder decisions = new StringBuilder();
        for (int i = 0; i < tasks.size(); i++) {
            boolean on = run.contains(tasks.get(i).info.taskId());
            if (on) {
                running++;
                resumed += chosen[i] ? 0 : 1;
                decisions.append(decisions.length() > 0 ? ";" : "").append(tasks.get(i).label);
            }
            chosen[i] = on;
        }
        long cycleNs = spec.cycleCostNs() + spec.cycleCostNsPerTask() * tasks.size();
        debtNs += cycleNs + (double) spec.switchCostNs() * resumed;
        cycles++;
        out.schedulerRow(now, tasks.size(), running, cycleNs, decisions.toString(), policy.explainLastChoice(), memory);
        if (policy instanceof KlinkPolicy klink) {
            out.estimatorRows(ownRecords(klink.drainEstimatorRecords()), klink.confidence());
        }
    }

    /**
     * The predictions for queries whose metrics window runs here: with forwarding, the node of a query's source
     * predicts its SWMs too, and each SWM is scored once.
     */
    private List<EstimatorRecord> ownRecords(List<EstimatorRecord> records) {
        return forwarding == null ? records : records.stream().filter(r -> metricQueries.contains(r.queryId())).toList();
    }

    long cycleMs() {
        String r = spec.policyParams().get("r");
        return r == null ? io.klink.scheduler.policy.PolicyConfig.DEFAULT_CYCLE_MS : Long.parseLong(r.trim());
    }

    /** Pending estimator rows of the run's end (predictions never resolved are written as skipped). */
    void finish(Outputs out) {
        if (policy instanceof KlinkPolicy klink) {
            klink.finish();
            out.estimatorRows(ownRecords(klink.drainEstimatorRecords()), klink.confidence());
        }
    }

    /** One ms: the CPU shared out, then every task that may run runs. */
    void tick(long now, boolean periodStart, boolean watermarkTick, Outputs out) {
        long capacity = spec.queues().equals("credit") ? spec.queueCapacityRecords() : 0;
        double available = threadsCpuNow(periodStart);
        double paid = Math.min(debtNs, available);  // the scheduler, switches and background go first
        debtNs -= paid;
        double forTasks = available - paid;
        if (cycleDue && forTasks > 0) {
            cycleDue = false;
            cycle(now, out);
        }
        // the other threads (otherThreadsShare) take the CPU from the tasks only: the agent's scheduler thread runs
        // at the highest priority, so its cycle above does not wait for them as it waits for a collection
        double otherPaid = Math.min(otherDebtNs, forTasks);
        otherDebtNs -= otherPaid;
        forTasks -= otherPaid;
        for (SimTask t : tasks) {
            if (t.spec.costNsPerMs() > 0) {
                t.accrueTime();
            }
        }
        double cpu = forTasks;
        double[] budget = new double[tasks.size()];
        boolean[] mayRun = new boolean[tasks.size()];
        for (int tier = 0; tier < 2; tier++) {
            List<Integer> members = new ArrayList<>();
            for (int i = 0; i < tasks.size(); i++) {
                boolean first = policy == null || chosen[i];
                boolean inTier = tier == 0 ? first : !first && spec.enforce().equals("priority");
                if (inTier) {
                    members.add(i);
                    mayRun[i] = true;
                }
            }
            cpu -= share(members, cpu, capacity, budget);
        }
        double tasksUsed = forTasks - cpu;
        quotaLeftNs -= paid + otherPaid + tasksUsed;
        background(tasksUsed);
        for (int i = 0; i < tasks.size(); i++) {
            SimTask t = tasks.get(i);
            if (watermarkTick && t.isSource()) {
                // the periodic watermark is a timer, a mail: the agent's pause suspends only the task's default
                // action (reading input), so a paused source still emits what it has read
                t.emitPeriodicWatermark(spec.watermarkBoundMs(), now);
            }
            if (!mayRun[i]) {
                continue;
            }
            boolean runs = budget[i] > 0 || t.hasFreeWork() || (policy == null || chosen[i]);
            if (runs) {
                t.run(now, budget[i], capacity, out);
            }
        }
    }

    /**
     * The TaskManager's other threads (Kafka fetchers, garbage collection, network) work in proportion to the tasks:
     * {@code backgroundCpuFraction} of all the CPU used. It is done at once, before the tasks' next ms, or, with
     * {@code backgroundBurstMs}, in stop-the-world bursts of that much CPU once that much has piled up (a young
     * collection), which the tasks wait behind.
     * With {@code otherThreadsShare} s > 0, only 1 − s of it is the collector's; s is the other threads' (JIT
     * compilers, Kafka fetchers, network), done in bursts of {@code otherThreadsBurstMs} that the tasks wait behind
     * but the scheduler thread (the agent's, at the highest priority) does not.
     * With {@code gcPressure} K > 0, the collector's cost of heap occupancy comes on top, done the same way: K u/(1 − u)
     * of the TaskManager's other CPU (the tasks' and the other background threads'), u the live-heap fraction
     * (a copying collector's work per byte allocated grows as live / free; calibrated on real G1 TaskManagers by
     * benchmarks/gc_pressure_fit.py).
     */
    private void background(double tasksUsedNs) {
        double bg = spec.backgroundCpuFraction();
        double made = tasksUsedNs * bg / (1 - bg);
        double other = spec.otherThreadsShare();
        backgroundNs += made * (1 - other);
        if (other > 0) {
            otherNs += made * other;
            double otherBurst = spec.otherThreadsBurstMs() * NS_PER_MS;
            double due = otherBurst <= 0 ? otherNs : otherNs >= otherBurst ? otherBurst : 0;
            otherDebtNs += due;
            otherNs -= due;
        }
        if (spec.gcPressure() > 0) {
            double u = Math.min(GC_LIVE_FRACTION_CAP, memoryUsedFraction());
            double gc = spec.gcPressure() * u / (1 - u) * tasksUsedNs / (1 - bg);
            backgroundNs += gc;
            gcNs += gc;
        }
        double burst = spec.backgroundBurstMs() * NS_PER_MS;
        if (burst <= 0) {
            debtNs += backgroundNs;
            backgroundNs = 0;
        } else if (backgroundNs >= burst) {
            debtNs += burst;
            backgroundNs -= burst;
        }
    }

    /**
     * CPU (ns) the TaskManager's threads may use this ms: at most ceil(cores) cores at once and, with a CPU period
     * (`--tm-cpu-quota`: Linux CFS bandwidth control), no more than cores x period per period. A quota of 0.25
     * core is a full core for 25 ms, then nothing for 75 ms, not a quarter of a core all the time.
     */
    private double threadsCpuNow(boolean periodStart) {
        double parallel = Math.ceil(spec.coresPerNode()) * NS_PER_MS;
        if (spec.cpuPeriodMs() <= 0) {
            return spec.coresPerNode() * NS_PER_MS;
        }
        if (periodStart) {
            quotaLeftNs = spec.coresPerNode() * spec.cpuPeriodMs() * NS_PER_MS;
        }
        return Math.max(0, Math.min(parallel, quotaLeftNs));
    }

    /**
     * Processor sharing: {@code cpu} split equally among the members with work, none getting more than it can
     * use or more than one core; what one cannot use goes to the others. Returns the CPU given out.
     */
    private double share(List<Integer> members, double cpu, long capacity, double[] budget) {
        int n = members.size();
        double[] demand = new double[n];
        Integer[] order = new Integer[n];
        for (int k = 0; k < n; k++) {
            demand[k] = Math.min(NS_PER_MS, Math.max(0, tasks.get(members.get(k)).demandNs(capacity)));
            order[k] = k;
        }
        Arrays.sort(order, (a, b) -> Double.compare(demand[a], demand[b]));
        double left = cpu;
        double given = 0;
        int waiting = 0;
        for (int k = 0; k < n; k++) {
            if (demand[order[k]] > 0) {
                waiting++;
            }
        }
        for (int k = 0; k < n && waiting > 0; k++) {
            double d = demand[order[k]];
            if (d <= 0) {
                continue;
            }
            double give = Math.min(d, left / waiting);
            budget[members.get(order[k])] += give;
            left -= give;
            given += give;
            waiting--;
        }
        return given;
    }

    /**
     * The TaskManager's live heap over its maximum: a base, the open windows' state and, with on-heap queues,
     * every queued record (with credit-based flow control the network buffers are off-heap and bounded).
     */
    double memoryUsedFraction() {
        double bytes = spec.baseHeapBytes();
        for (SimTask t : tasks) {
            bytes += (double) t.openWindowCount() * t.spec.keys() * spec.stateBytesPerKey();
            if (spec.queues().equals("heap") && !t.isSource()) {
                bytes += (double) t.queue.records() * spec.recordBytes();
            }
        }
        return Math.min(1.0, bytes / spec.heapBytes());
    }
}
