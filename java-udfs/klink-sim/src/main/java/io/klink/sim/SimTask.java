package io.klink.sim;

import io.klink.scheduler.ArrivalClock;
import io.klink.scheduler.SourceBacklog;
import io.klink.scheduler.TaskInfo;
import io.klink.scheduler.TaskSnapshot;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One simulated task (an operator chain, one thread): it consumes its input queue in order, record batches
 * at {@code costNsPerRecord} each and watermarks for free, while it has CPU. A window task assigns records
 * to event-time windows, drops late ones (window end - 1 <= its watermark, as Flink) and, when a watermark
 * sweeps a window, fires it: {@code keys} results at {@code fireCostNsPerKey} each, after which the metrics
 * window writes its latency row (the SWM latency of DESIGN.md §4) and the others emit the results downstream.
 * An output edge's selectivity is records out per record in for every kind of task, windows included (what
 * the agent's tasks.csv measures, so {@code --calibrate-from} needs no model of the run's firings and keys): a
 * firing emits its window's records x selectivity x slide / size, so that over a run every record in gives
 * selectivity records out however many windows it falls in (size / slide on average).
 */
final class SimTask {

    /** As the agent's (io.klink.agent.TaskHandle): a source's lag within this of its floor is no backlog. */
    static final long SOURCE_LAG_TOLERANCE_MS = 250;

    /** A window swept by a watermark, its results still being produced. */
    record Firing(long end, long events, long keys, long watermark, long firedAt, double[] remainingNs,
                  long lateDropped) {}

    final TaskInfo info;
    final String label;
    final String vertex;
    final int node;
    final SimSpec.Task spec;
    /** CPU per record in (a source's per event, its Kafka records' cost included: SimSpec.Task#costNsPerEvent). */
    private final double costNs;
    final ElementQueue queue = new ElementQueue();
    final List<SimTask> targets = new ArrayList<>();
    final List<Integer> targetChannels = new ArrayList<>();
    private double[] selectivities = new double[0];
    private double[] emitted = new double[0];
    private long[] channelWatermarks = new long[0];
    private final TreeMap<Long, long[]> openWindows = new TreeMap<>();  // end -> {events}
    private long cachedEnd = Long.MIN_VALUE;  // the window the last records went to (most records go where the last did)
    private long[] cachedWindow;
    private final ArrayDeque<Firing> firings = new ArrayDeque<>();
    private long forwardAfterFirings = Long.MIN_VALUE;
    private final long windowOffsetMs;
    private ElementQueue[] outBuffers;  // per target, its network buffer; null: outputs reach their targets at once
    long flushPhaseMs;  // with outBuffers: the ms (mod the buffer timeout) its output flusher runs at

    long watermark = TaskSnapshot.NO_WATERMARK;
    long maxEventTime = Long.MIN_VALUE;
    double carryNs;
    /** CPU owed for simulated time ({@code costNsPerMs} a ms, {@link #accrueTime}), paid before any record. */
    private double timeNs;
    long recordsIn;
    long recordsOut;
    double cpuNs;
    long lateDropped;
    private long lateSinceFiring;

    // the scheduler's view, updated once per cycle as the agent does (Scheduler.collect)
    private long lastIn = -1;
    private long lastOut = -1;
    private double lastCpuNs = -1;
    private double meanCostNs;
    private double selectivity = Double.NaN;
    private final SourceBacklog backlog = new SourceBacklog(SOURCE_LAG_TOLERANCE_MS);
    private final ArrivalClock arrivals = new ArrivalClock();

    SimTask(TaskInfo info, String label, String vertex, int node, SimSpec.Task spec, long queryOffsetMs) {
        this.info = info;
        this.label = label;
        this.vertex = vertex;
        this.node = node;
        this.spec = spec;
        this.costNs = spec.costNsPerEvent();
        this.windowOffsetMs = queryOffsetMs + spec.offsetMs();
    }

    /** Adds an output edge; returns the channel this task is on the target's input. */
    void connect(SimTask target, double outputsPerRecord) {
        targets.add(target);
        selectivities = Arrays.copyOf(selectivities, targets.size());
        selectivities[targets.size() - 1] = outputsPerRecord;
        targetChannels.add(target.addChannel());
        emitted = Arrays.copyOf(emitted, targets.size());
    }

    /**
     * From now on this task's outputs wait in a network buffer per target until {@link #flushOutputs} (Flink's
     * output flusher, every execution.buffer-timeout); call after every {@link #connect}.
     */
    void bufferOutputs(long phaseMs) {
        outBuffers = new ElementQueue[targets.size()];
        Arrays.setAll(outBuffers, i -> new ElementQueue());
        flushPhaseMs = phaseMs;
    }

    boolean buffersOutputs() {
        return outBuffers != null;
    }

    /** The output flusher: every buffered record and watermark goes on to its target, in order. */
    void flushOutputs(long now) {
        for (int i = 0; i < outBuffers.length; i++) {
            outBuffers[i].drainInto(targets.get(i).queue, now);
        }
    }

    private ElementQueue outputTo(int target) {
        return outBuffers == null ? targets.get(target).queue : outBuffers[target];
    }

    private long buffered(int target) {
        return outBuffers == null ? 0 : outBuffers[target].records();
    }

    private int addChannel() {
        channelWatermarks = Arrays.copyOf(channelWatermarks, channelWatermarks.length + 1);
        channelWatermarks[channelWatermarks.length - 1] = Long.MIN_VALUE;
        return channelWatermarks.length - 1;
    }

    boolean isSource() {
        return info.isSource();
    }

    boolean isWindow() {
        return info.isWindow();
    }

    /** Records this task could process now: its queue, bounded by the room its targets have (credit mode). */
    long processableRecords(long capacity) {
        long n = queue.records();
        if (capacity <= 0 || isWindow()) {  // a window emits when it fires, not per record
            return n;
        }
        for (int i = 0; i < targets.size(); i++) {
            double sel = selectivities[i];
            if (sel > 0) {
                long room = Math.max(0, capacity - targets.get(i).queue.records() - buffered(i));
                n = Math.min(n, (long) Math.floor(room / sel));
            }
        }
        return n;
    }

    /** CPU (ns) this task could use now: firings in progress plus the records it may process. */
    double demandNs(long capacity) {
        double fire = 0;
        for (Firing f : firings) {
            fire += f.remainingNs()[0];
        }
        return fire + timeNs + processableRecords(capacity) * costNs - carryNs;
    }

    /** One more ms of the task's per-time cost (SimSpec.Task#costNsPerMs), owed until it next runs. */
    void accrueTime() {
        timeNs += spec.costNsPerMs();
    }

    /** True if something is waiting that costs no CPU (a watermark at the head). */
    boolean hasFreeWork() {
        return firings.isEmpty() && !queue.isEmpty() && queue.headKind() == ElementQueue.WATERMARK;
    }

    /**
     * Runs for one ms with {@code budgetNs} of CPU.
     *
     * @param capacity input queue bound of the targets (0: unbounded)
     */
    void run(long now, double budgetNs, long capacity, Outputs out) {
        carryNs += budgetNs;
        if (timeNs > 0) {  // the per-time work comes first: a task behind on it reads no record
            double spend = Math.min(timeNs, Math.max(0, carryNs));
            timeNs -= spend;
            carryNs -= spend;
            cpuNs += spend;
        }
        while (true) {
            if (!firings.isEmpty()) {
                if (!workOnFiring(now, out)) {
                    break;
                }
                continue;
            }
            if (forwardAfterFirings != Long.MIN_VALUE) {
                forward(forwardAfterFirings, now);
                forwardAfterFirings = Long.MIN_VALUE;
            }
            if (queue.isEmpty()) {
                break;
            }
            if (queue.headKind() == ElementQueue.WATERMARK) {
                long value = queue.headTime();
                int channel = (int) queue.headCount();
                queue.pop();
                onWatermark(channel, value, now);
                continue;
            }
            long eventTime = queue.headTime();
            if (queue.headKind() == ElementQueue.PROGRESS) {
                if (carryNs < costNs) {
                    break;
                }
                queue.takeRecords(1);
                carryNs -= costNs;
                cpuNs += costNs;
                maxEventTime = Math.max(maxEventTime, eventTime);
                continue;
            }
            long affordable = (long) Math.floor(carryNs / costNs);
            long n = Math.min(Math.min(queue.headCount(), processableRecords(capacity)), affordable);
            if (n <= 0) {
                break;
            }
            queue.takeRecords(n);
            double cost = n * costNs;
            carryNs -= cost;
            cpuNs += cost;
            recordsIn += n;
            consume(eventTime, n, now);
        }
        if (queue.isEmpty() && firings.isEmpty()) {
            carryNs = Math.min(carryNs, 0);  // an idle thread does not bank CPU
        }
    }

    private boolean workOnFiring(long now, Outputs out) {
        Firing f = firings.peek();
        double[] remaining = f.remainingNs();
        double spend = Math.min(remaining[0], Math.max(0, carryNs));
        remaining[0] -= spend;
        carryNs -= spend;
        cpuNs += spend;
        if (remaining[0] > 1e-9) {
            return false;
        }
        firings.poll();
        if (spec.metrics()) {
            out.latencyRow(this, f, now);
        } else {
            long period = spec.slideMs() > 0 ? spec.slideMs() : spec.windowMs();
            emit(f.end() - 1, (double) f.events() * period / spec.windowMs(), now);
        }
        return true;
    }

    private void consume(long eventTime, long n, long now) {
        if (isSource()) {
            maxEventTime = Math.max(maxEventTime, eventTime);
            emit(eventTime, n, now);
        } else if (isWindow()) {
            assign(eventTime, n);
        } else {
            emit(eventTime, n, now);
        }
    }

    /** Emits {@code records} x each edge's selectivity downstream (fractions carried to the next emit). */
    private void emit(long eventTime, double records, long now) {
        for (int i = 0; i < targets.size(); i++) {
            emitted[i] += records * selectivities[i];
            long whole = (long) Math.floor(emitted[i]);
            if (whole > 0) {
                emitted[i] -= whole;
                outputTo(i).pushRecords(eventTime, whole, now);
                recordsOut += whole;
            }
        }
    }

    private void assign(long eventTime, long n) {
        long period = spec.slideMs() > 0 ? spec.slideMs() : spec.windowMs();
        long phase = Math.floorMod(windowOffsetMs + spec.windowMs(), period);
        long firstEnd = eventTime + 1 + Math.floorMod(phase - (eventTime + 1), period);  // smallest end > eventTime
        for (long end = firstEnd; end - spec.windowMs() <= eventTime; end += period) {
            if (watermark != TaskSnapshot.NO_WATERMARK && end - 1 <= watermark) {
                lateDropped += n;
                lateSinceFiring += n;
            } else if (n > 0) {
                if (end != cachedEnd) {
                    cachedWindow = openWindows.computeIfAbsent(end, e -> new long[1]);
                    cachedEnd = end;
                }
                cachedWindow[0] += n;
            }
        }
    }

    private void onWatermark(int channel, long value, long now) {
        channelWatermarks[channel] = Math.max(channelWatermarks[channel], value);
        long min = Long.MAX_VALUE;
        for (long w : channelWatermarks) {
            min = Math.min(min, w);
        }
        if (min == Long.MIN_VALUE || (watermark != TaskSnapshot.NO_WATERMARK && min <= watermark)) {
            return;
        }
        watermark = min;
        if (!isWindow()) {
            forward(min, now);
            return;
        }
        while (!openWindows.isEmpty() && openWindows.firstKey() - 1 <= min) {
            Map.Entry<Long, long[]> w = openWindows.pollFirstEntry();
            if (w.getKey() == cachedEnd) {
                cachedEnd = Long.MIN_VALUE;
            }
            long events = w.getValue()[0];
            long keys = Math.min(spec.keys(), events);
            firings.add(new Firing(w.getKey(), events, keys, min, now,
                    new double[] {keys * spec.fireCostNsPerKey()}, lateSinceFiring));
            lateSinceFiring = 0;
        }
        if (firings.isEmpty()) {
            forward(min, now);
        } else {
            forwardAfterFirings = min;
        }
    }

    /** A source's periodic watermark (Flink's bounded out-of-orderness: max event time - B - 1). */
    void emitPeriodicWatermark(long boundMs, long now) {
        if (maxEventTime == Long.MIN_VALUE) {
            return;
        }
        long wm = maxEventTime - boundMs - 1;
        if (watermark == TaskSnapshot.NO_WATERMARK || wm > watermark) {
            watermark = wm;
            forward(wm, now);
        }
    }

    private void forward(long wm, long now) {
        for (int i = 0; i < targets.size(); i++) {
            outputTo(i).pushWatermark(wm, targetChannels.get(i), now);
        }
    }

    long openWindowCount() {
        return openWindows.size();
    }

    boolean idle() {
        return queue.isEmpty() && firings.isEmpty();
    }

    /** What the agent would collect for this task now (io.klink.agent.Scheduler.collect). */
    TaskSnapshot snapshot(long now) {
        long dIn = lastIn < 0 ? 0 : recordsIn - lastIn;
        long dOut = lastOut < 0 ? 0 : recordsOut - lastOut;
        double dCpu = lastCpuNs < 0 ? -1 : cpuNs - lastCpuNs;
        long processed = dIn > 0 ? dIn : dOut;
        if (processed > 0 && dCpu >= 0) {
            meanCostNs = dCpu / processed;
        }
        if (dIn > 0) {
            selectivity = (double) dOut / dIn;
        }
        lastIn = recordsIn;
        lastOut = recordsOut;
        lastCpuNs = cpuNs;
        long deadline = isWindow() && !openWindows.isEmpty() ? openWindows.firstKey() : TaskSnapshot.NO_DEADLINE;
        // The agent cannot see a source's Kafka backlog: it estimates it from the watermark's lag (SourceBacklog)
        // and the oldest arrival from two counters (ArrivalClock). The policies get the same estimates here.
        long queued = isSource() ? backlog.update(now, watermark, recordsIn) : queue.records();
        long oldest = arrivals.observe(now, recordsIn, queued);
        boolean runnable = isSource() ? queued > 0 || watermark == TaskSnapshot.NO_WATERMARK
                : !queue.isEmpty() || !firings.isEmpty() || dIn > 0;
        return new TaskSnapshot(info.taskId(), queued, recordsIn, recordsOut, meanCostNs, selectivity,
                watermark, deadline, oldest, runnable);
    }
}
