package io.klink.workloads.late;

import io.klink.metrics.TumblingWindows;
import io.klink.workloads.late.IoScheduler.Priority;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * AION's window state (seed aion-late-events-esteves.txt §3.1–3.3) for tumbling event-time windows with an allowed
 * lateness L, free of Flink. Each window's state is an in-memory m-bucket of at most {@code mBucketEvents} events
 * and a p-bucket on disk ({@link PBuckets}); every transfer runs on one {@link IoScheduler} thread.
 * <ul>
 *   <li>Populating (§3.2, standard policy): events go to the m-bucket; once it is full, to the p-bucket.
 *   <li>Expiry (the watermark passes the window's end, §3.2 local policy 1): the window fires, then its
 *       m-bucket is destaged to the p-bucket except the first ⌈ρ_min·n⌉ events, the bootstrap set.
 *   <li>A late event (watermark past the end, before end + L) is written to the p-bucket (§3.2: "subsequent
 *       arriving (late) events for w are written directly to the p-bucket") and the window is marked for
 *       re-execution; a later one is dropped (Flink's rule: dropped once end − 1 + L ≤ watermark).
 *   <li>Re-execution (low priority, §3.2: on a watermark or re-execution tick, not per late event; which ones
 *       {@link LateExecutions} decides: every tick, or §3.4's staleness trigger): the p-bucket is staged back at
 *       the highest I/O priority, the whole window recomputed over bootstrap + staged events (the generic,
 *       non-incremental case of §2), and the staged events freed.
 *   <li>Proactive caching (§3.2, with a tick as pre-staging lead): a past window with new events whose next
 *       execution is due within a tick plus its expected staging time Δt has its p-bucket read ahead
 *       ({@link #prestageIfDue}); late events written after that read are kept beside it until the execution.
 *   <li>Cleanup at end − 1 + L_w ≤ watermark: a window with new events executes a last time, reports its
 *       staleness and bound ({@link #drainReports}), and its p-bucket is deleted. L_w is the fixed L, or with
 *       §3.4's predictive cleanup ({@link PredictiveCleanup}) the bound set when the window was created; an event
 *       for a window purged before L is dropped and counted ({@code droppedAfterPurge}).
 * </ul>
 */
public final class AionWindows implements AutoCloseable {

    /** Bounds checked here and by klinkctl (docs/options.md). */
    public record Settings(long sizeMs, long offsetMs, long allowedLatenessMs, int mBucketEvents, double rhoMin,
                           String lateTrigger, double stalenessBound, int lateExecutions, double cleanupCoverage,
                           long prestageAheadMs, DestagePolicies destaging, LateWindowFunction function)
            implements java.io.Serializable {
        public Settings {
            if (sizeMs <= 0 || allowedLatenessMs < 0 || mBucketEvents < 1 || !(rhoMin >= 0 && rhoMin <= 1)
                    || prestageAheadMs < 0) {
                throw new IllegalArgumentException("AION needs a positive window, a lateness >= 0, an m-bucket of "
                        + ">= 1 event, 0 <= rho_min <= 1 and a pre-staging lead >= 0; got " + this);
            }
            new LateExecutions(lateTrigger, stalenessBound, lateExecutions, allowedLatenessMs);  // refuses bad ones
            new PredictiveCleanup(cleanupCoverage, allowedLatenessMs);  // and a bad coverage
            java.util.Objects.requireNonNull(destaging, "destaging policies");
            java.util.Objects.requireNonNull(function, "window function");
        }

        /** Staging on demand (no pre-staging), only the standard policy's destaging, the paper's average. */
        public Settings(long sizeMs, long offsetMs, long allowedLatenessMs, int mBucketEvents, double rhoMin,
                        String lateTrigger, double stalenessBound, double cleanupCoverage) {
            this(sizeMs, offsetMs, allowedLatenessMs, mBucketEvents, rhoMin, lateTrigger, stalenessBound,
                    LateExecutions.DEFAULT_EXECUTIONS, cleanupCoverage, 0, DestagePolicies.NONE,
                    new LateWindowFunction.Average());
        }

        /** The fixed bound: every window kept for the allowed lateness. */
        public Settings(long sizeMs, long offsetMs, long allowedLatenessMs, int mBucketEvents, double rhoMin,
                        String lateTrigger, double stalenessBound) {
            this(sizeMs, offsetMs, allowedLatenessMs, mBucketEvents, rhoMin, lateTrigger, stalenessBound, 0);
        }

        /** Re-execution on every watermark or tick. */
        public Settings(long sizeMs, long offsetMs, long allowedLatenessMs, int mBucketEvents, double rhoMin) {
            this(sizeMs, offsetMs, allowedLatenessMs, mBucketEvents, rhoMin, "watermark", 1, 0);
        }

        /** The same with {@code k} executions per window for the Δt and Δev triggers. */
        public Settings executing(int k) {
            return new Settings(sizeMs, offsetMs, allowedLatenessMs, mBucketEvents, rhoMin, lateTrigger,
                    stalenessBound, k, cleanupCoverage, prestageAheadMs, destaging, function);
        }

        /** The same with §3.2's proactive caching, checked every {@code tickMs} (the watermark interval): a window's
         *  p-bucket is staged once its next execution is due within a tick plus its expected staging time (0: on
         *  demand). */
        public Settings prestagingAhead(long tickMs) {
            return new Settings(sizeMs, offsetMs, allowedLatenessMs, mBucketEvents, rhoMin, lateTrigger,
                    stalenessBound, lateExecutions, cleanupCoverage, tickMs, destaging, function);
        }

        /** The same with §3.2's additional destaging policies. */
        public Settings destaging(DestagePolicies policies) {
            return new Settings(sizeMs, offsetMs, allowedLatenessMs, mBucketEvents, rhoMin, lateTrigger,
                    stalenessBound, lateExecutions, cleanupCoverage, prestageAheadMs, policies, function);
        }

        /** The same computing another window function per key. */
        public Settings computing(LateWindowFunction windowFunction) {
            return new Settings(sizeMs, offsetMs, allowedLatenessMs, mBucketEvents, rhoMin, lateTrigger,
                    stalenessBound, lateExecutions, cleanupCoverage, prestageAheadMs, destaging, windowFunction);
        }

        /** The same at another window offset. */
        public Settings at(long offset) {
            return new Settings(sizeMs, offset, allowedLatenessMs, mBucketEvents, rhoMin, lateTrigger,
                    stalenessBound, lateExecutions, cleanupCoverage, prestageAheadMs, destaging, function);
        }
    }

    /** Every {@code --late-trigger} (klink-catalog publishes them). */
    public static final List<String> LATE_TRIGGERS = LateExecutions.TRIGGERS;

    /** One key's result of one execution of a window (execution 1 is the on-time one, unless all was late):
     *  the window function's {@code values} over its {@code events}. */
    public record Result(long windowEnd, String key, List<Double> values, long events, int execution,
                         long lateAccepted) {}

    /** What AION did so far (docs/late-state.md). */
    public record Counters(long lateAccepted, long lateDropped, long destaged, long lateWrites, long overflowWrites,
                           long staged, long reExecutions, long mBucketEvents, long droppedAfterPurge,
                           long prestaged, long stagingWaitMs, long idleDestaged, long scarceDestaged) {}

    private static final class Window {
        final long boundMs;  // how long after its end it takes late events (§3.4 predictive cleanup)
        List<LateEvent> mBucket = new ArrayList<>();
        long pEvents;
        boolean expired;
        boolean dirty;
        int executions;
        final Map<String, Long> lateByKey = new HashMap<>();
        final LateExecutions.Window staleness = new LateExecutions.Window();
        CompletableFuture<List<LateEvent>> prestaged;  // its p-bucket read ahead of its next execution (§3.2)
        List<LateEvent> fresh = new ArrayList<>();  // late events written after that read was submitted

        final long createdMs;
        long lastEventMs;
        long events;  // added while current, for its ingestion rate
        int bootstrap = -1;  // the first events of the m-bucket kept at its first destaging (-1: not destaged yet)

        Window(long boundMs, long nowMs) {
            this.boundMs = boundMs;
            this.createdMs = nowMs;
            this.lastEventMs = nowMs;
        }
    }

    private final Settings settings;
    private final PBuckets store;
    private final IoScheduler io;
    private final LateExecutions executions;
    private final PredictiveCleanup cleanup;
    private final TreeMap<Long, Long> purged = new TreeMap<>();  // windows purged before the fixed bound: their bound
    private final List<LateExecutions.Report> reports = new ArrayList<>();
    private final TreeMap<Long, Window> windows = new TreeMap<>();
    private long watermark = Long.MIN_VALUE;
    private long lateAccepted, lateDropped, destaged, lateWrites, overflowWrites, staged, reExecutions;
    private long droppedAfterPurge, prestagedReads, stagingWaitNs;
    private volatile double stagingNsPerEvent = Double.NaN;  // measured by the I/O thread, read by the operator
    private long idleDestaged, scarceDestaged;
    private final LongSupplier clock;
    private final DoubleSupplier freeHeap;
    private long lastWatermarkMs;

    public AionWindows(Settings settings, PBuckets store, IoScheduler io) {
        this(settings, store, io, System::currentTimeMillis, () -> 1.0);
    }

    /** {@code clock}: processing time (ms); {@code freeHeap}: the heap's free fraction μ after the latest GC. */
    public AionWindows(Settings settings, PBuckets store, IoScheduler io, LongSupplier clock, DoubleSupplier freeHeap) {
        this.clock = clock;
        this.freeHeap = freeHeap;
        this.lastWatermarkMs = clock.getAsLong();
        this.settings = settings;
        this.store = store;
        this.io = io;
        this.executions = new LateExecutions(settings.lateTrigger(), settings.stalenessBound(),
                settings.lateExecutions(), settings.allowedLatenessMs());
        this.cleanup = new PredictiveCleanup(settings.cleanupCoverage(), settings.allowedLatenessMs());
    }

    public long windowEnd(long timestamp) {
        return TumblingWindows.windowEnd(timestamp, settings.sizeMs(), Math.floorMod(settings.offsetMs(),
                settings.sizeMs()));
    }

    private boolean pastCleanup(long end) {
        return watermark != Long.MIN_VALUE && end - 1 + settings.allowedLatenessMs() <= watermark;
    }

    /** Past the window's own bound (the fixed one unless predictive cleanup set a shorter one). */
    private boolean pastBound(long end, Window w) {
        return watermark != Long.MIN_VALUE && end - 1 + w.boundMs <= watermark;
    }

    private boolean expired(long end) {
        return watermark != Long.MIN_VALUE && end - 1 <= watermark;
    }

    /** Adds an event; false if it came after its window's cleanup (dropped, counted). */
    public boolean add(LateEvent event) {
        long end = windowEnd(event.timestamp());
        boolean purgedEarly = purged.containsKey(end);
        if (pastCleanup(end) || purgedEarly) {
            cleanup.observe(end, age(end));  // arrivals past the bound are observed too
            lateDropped++;
            droppedAfterPurge += purgedEarly ? 1 : 0;
            return false;
        }
        long now = clock.getAsLong();
        Window w = windows.computeIfAbsent(end, e -> new Window(cleanup.bound(), now));
        w.lastEventMs = now;
        if (expired(end)) {
            w.expired = true;
            w.dirty = true;
            w.lateByKey.merge(event.key(), 1L, Long::sum);
            executions.late(w.staleness, age(end));
            cleanup.observe(end, age(end));
            lateAccepted++;
            lateWrites++;
            write(end, w, List.of(event), Priority.LATE_WRITE);
            if (w.prestaged != null) {
                w.fresh.add(event);  // on disk too, but after the read ahead: it will not see this one
            }
            prestageIfDue(end, w);
        } else if (w.mBucket.size() < settings.mBucketEvents()) {
            w.mBucket.add(event);
            w.events++;
        } else {
            overflowWrites++;  // §3.2: "when the m-bucket becomes full, AION redirects new events to the p-bucket"
            write(end, w, List.of(event), Priority.LATE_WRITE);
        }
        return true;
    }

    private void write(long end, Window w, List<LateEvent> events, Priority priority) {
        w.pEvents += events.size();
        io.submit(end, priority, () -> store.append(end, events));
    }

    /** Advances the watermark: fires and destages expired windows, re-executes the dirty ones, cleans up. */
    public List<Result> advance(long newWatermark) {
        List<Result> out = new ArrayList<>();
        if (newWatermark <= watermark) {
            return out;
        }
        watermark = newWatermark;
        lastWatermarkMs = clock.getAsLong();
        for (Map.Entry<Long, Window> e : windows.entrySet()) {
            Window w = e.getValue();
            if (!w.expired && expired(e.getKey())) {
                w.expired = true;
                w.dirty = true;  // its first execution, on time
            }
        }
        out.addAll(reExecute());
        windows.forEach(this::prestageIfDue);
        cleanup.advance(watermark);
        purged.headMap(watermark - settings.allowedLatenessMs() + 1, true).clear();  // past the fixed bound
        for (Map.Entry<Long, Window> e : List.copyOf(windows.entrySet())) {
            long end = e.getKey();
            Window w = e.getValue();
            if (pastBound(end, w)) {
                reports.add(executions.cleanedUp(end, w.staleness, w.boundMs));
                windows.remove(end);
                if (!pastCleanup(end)) {
                    purged.put(end, w.boundMs);
                }
                io.submit(end, Priority.DESTAGE, () -> {
                    store.delete(end);
                    return null;
                });
            }
        }
        return out;
    }

    /**
     * Executes every expired window with new events since its last execution (the re-execution tick), in window
     * order; the next window's p-bucket is staged while the current one executes, so at most two windows' staged
     * events are in memory at once.
     */
    public List<Result> reExecute() {
        List<Long> dirty = windows.entrySet().stream().filter(e -> due(e.getKey(), e.getValue()))
                .map(Map.Entry::getKey).toList();
        List<CompletableFuture<List<LateEvent>>> staging = new ArrayList<>();
        List<Result> out = new ArrayList<>();
        for (int i = 0; i < dirty.size(); i++) {
            while (staging.size() <= Math.min(i + 1, dirty.size() - 1)) {
                staging.add(stage(dirty.get(staging.size())));
            }
            long end = dirty.get(i);
            Window w = windows.get(end);
            List<LateEvent> events = new ArrayList<>(w.mBucket);
            CompletableFuture<List<LateEvent>> stagedEvents = staging.set(i, null);
            if (stagedEvents != null) {
                events.addAll(await(stagedEvents));
                events.addAll(w.fresh);
                staged += events.size() - w.mBucket.size();
            }
            w.fresh = new ArrayList<>();
            execute(end, w, events, out);
            w.dirty = false;
            if (w.executions == 1) {
                executions.fired(w.staleness, age(end));
                destage(end, w);
            } else {
                executions.executed(w.staleness, age(end));
            }
        }
        return out;
    }

    /** Watermark time since the window's end − 1 (its age in the allowed lateness). */
    private long age(long end) {
        return watermark - (end - 1);
    }

    /** Whether a window executes now: its on-time firing, or new events and the trigger says so. */
    private boolean due(long end, Window w) {
        if (!w.expired) {
            return false;
        }
        boolean due = w.executions == 0 || executions.due(w.staleness, age(end), pastBound(end, w));
        return w.dirty && due;
    }

    /** The staleness reports of the windows cleaned up since the last call. */
    public List<LateExecutions.Report> drainReports() {
        List<LateExecutions.Report> out = List.copyOf(reports);
        reports.clear();
        return out;
    }

    /** The window's p-bucket as read ahead, or read back now at the highest I/O priority; null if it has nothing
     *  on disk. */
    private CompletableFuture<List<LateEvent>> stage(long end) {
        Window w = windows.get(end);
        CompletableFuture<List<LateEvent>> ahead = w.prestaged;
        w.prestaged = null;
        if (ahead != null) {
            return ahead;
        }
        return w.pEvents > 0 ? read(end) : null;
    }

    /** A staging read of the window's p-bucket at the highest priority, timed: Δt per staged event (§3.2). */
    private CompletableFuture<List<LateEvent>> read(long end) {
        return io.submit(end, Priority.PRESTAGE, () -> {
            long start = System.nanoTime();
            List<LateEvent> events = store.read(end);
            if (!events.isEmpty()) {
                double perEvent = (double) (System.nanoTime() - start) / events.size();
                double before = stagingNsPerEvent;
                stagingNsPerEvent = Double.isNaN(before) ? perEvent : 0.8 * before + 0.2 * perEvent;
            }
            return events;
        });
    }

    /** How long staging the window's p-bucket is expected to take: its events times the measured time per event
     *  (0 before any staging was measured). */
    private long stagingEstimateMs(Window w) {
        double perEvent = stagingNsPerEvent;
        return Double.isNaN(perEvent) ? 0 : (long) Math.ceil(perEvent * w.pEvents / 1e6);
    }

    /**
     * §3.2's proactive caching: a past window with new late events whose next execution (its next planned age or
     * its cleanup, in watermark time; with the watermark trigger the next tick) is due within the lead — one tick
     * ({@code prestageAheadMs}, when this is checked next) plus Δt, the time staging its p-bucket is expected to
     * take from the staging time per event measured so far — has its p-bucket read now, so the execution finds it
     * in memory instead of waiting for the disk.
     */
    private void prestageIfDue(long end, Window w) {
        long tick = settings.prestageAheadMs();
        if (tick <= 0 || w.prestaged != null || !w.dirty || w.executions == 0 || w.pEvents == 0) {
            return;
        }
        long age = age(end) + tick + stagingEstimateMs(w);
        if (executions.dueBy(w.staleness, age) || age >= w.boundMs) {
            w.prestaged = read(end);
            prestagedReads++;
        }
    }

    private List<LateEvent> await(CompletableFuture<List<LateEvent>> future) {
        long start = System.nanoTime();
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while staging a p-bucket", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("staging a p-bucket failed: " + e.getCause(), e.getCause());
        } finally {
            stagingWaitNs += System.nanoTime() - start;
        }
    }

    /** The window function ({@link Settings#function}) per key, over every event of the window. */
    private void execute(long end, Window w, List<LateEvent> events, List<Result> out) {
        w.executions++;
        if (w.executions > 1) {
            reExecutions++;
        }
        Map<String, List<LateEvent>> byKey = new TreeMap<>();
        for (LateEvent e : events) {
            byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
        }
        byKey.forEach((key, keyEvents) -> out.add(new Result(end, key, settings.function().apply(keyEvents),
                keyEvents.size(), w.executions, w.lateByKey.getOrDefault(key, 0L))));
    }

    /** §3.2 local policy 1: on expiry, move the m-bucket to the p-bucket except the first ⌈ρ_min·n⌉ events. */
    private void destage(long end, Window w) {
        destaged += moveToDisk(end, w);
    }

    /** Moves the m-bucket to the p-bucket except its bootstrap set: the first ⌈ρ_min·n⌉ events at its first
     *  destaging, the same events at later ones; returns the events moved. */
    private int moveToDisk(long end, Window w) {
        int keep = bootstrapOf(w);
        w.bootstrap = keep;
        if (keep >= w.mBucket.size()) {
            return 0;
        }
        List<LateEvent> rest = List.copyOf(w.mBucket.subList(keep, w.mBucket.size()));
        w.mBucket = new ArrayList<>(w.mBucket.subList(0, keep));
        write(end, w, rest, Priority.DESTAGE);
        return rest.size();
    }

    /**
     * The additional destaging policies ({@link DestagePolicies}), on a processing-time tick, for the current
     * windows (a past one holds only its bootstrap set already): those idle for τ, then, while the heap is very
     * scarce every one, while moderately scarce one in the policy's order. A window destaged while current keeps
     * taking events in its m-bucket; its firing stages its p-bucket back.
     */
    public void tick() {
        DestagePolicies policies = settings.destaging();
        long now = clock.getAsLong();
        if (policies.idleMs() > 0) {
            for (Map.Entry<Long, Window> e : windows.entrySet()) {
                Window w = e.getValue();
                if (!w.expired && now - Math.max(w.lastEventMs, lastWatermarkMs) > policies.idleMs()) {
                    idleDestaged += moveToDisk(e.getKey(), w);
                }
            }
        }
        if (!policies.anyGlobal()) {
            return;
        }
        double free = freeHeap.getAsDouble();
        if (free < policies.veryScarce()) {
            windows.forEach((end, w) -> scarceDestaged += w.expired ? 0 : moveToDisk(end, w));
        } else if (free < policies.scarce()) {
            Comparator<Map.Entry<Long, Window>> order = policies.order().equals("rate")
                    ? Comparator.comparingDouble(e -> rate(e.getValue(), now))
                    : Comparator.comparingInt((Map.Entry<Long, Window> e) -> -e.getValue().mBucket.size());
            windows.entrySet().stream().filter(e -> !e.getValue().expired).sorted(order)
                    .filter(e -> bootstrapOf(e.getValue()) < e.getValue().mBucket.size())
                    .findFirst().ifPresent(e -> scarceDestaged += moveToDisk(e.getKey(), e.getValue()));
        }
    }

    private int bootstrapOf(Window w) {
        return w.bootstrap >= 0 ? w.bootstrap : (int) Math.ceil(settings.rhoMin() * w.mBucket.size());
    }

    /** Events per second a window took while current (its ingestion rate). */
    private static double rate(Window w, long now) {
        return w.events * 1000.0 / Math.max(1, now - w.createdMs);
    }

    public Counters counters() {
        long inMemory = windows.values().stream().mapToLong(w -> w.mBucket.size()).sum();
        return new Counters(lateAccepted, lateDropped, destaged, lateWrites, overflowWrites, staged, reExecutions,
                inMemory, droppedAfterPurge, prestagedReads, stagingWaitNs / 1_000_000, idleDestaged, scarceDestaged);
    }

    public long watermark() {
        return watermark;
    }

    public int openWindows() {
        return windows.size();
    }

    /** Stops the I/O thread and deletes every p-bucket. */
    @Override
    public void close() throws IOException, InterruptedException {
        io.close();
        store.deleteAll();
    }
}
