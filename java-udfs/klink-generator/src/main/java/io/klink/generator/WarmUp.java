package io.klink.generator;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * A rehearsal of the run before the run: the same configuration (topics, rate, delay, mode) into a
 * sink the caller points at a warm-up topic, with other seed streams, until the JIT has settled. On
 * one shared core a cold JVM + Kafka producer keeps compiling for about 10 s and sends at a fraction
 * of its full speed meanwhile, so a fast run that starts cold is late for its first seconds.
 *
 * <p>Settled = the JIT spent less than {@link #SETTLED_COMPILE_MS} ms compiling during the last
 * {@link #WINDOW_MS} ms window (after at least {@link #MIN_MS} ms); the rehearsal also stops at the
 * caller's maximum. The same classes and call sites as the run are exercised (same sink class, same
 * loop), so the compiled code stays valid when the run starts.
 */
final class WarmUp {

    static final long WINDOW_MS = 500;
    static final long MIN_MS = 1000;
    static final long SETTLED_COMPILE_MS = 10;

    /** What happened: events sent, time taken, and whether the JIT settled before the maximum. */
    record Outcome(long events, long millis, boolean settled, long lastWindowCompileMs) {
    }

    private WarmUp() {
    }

    /** Every this many ms the rehearsal moves to the other set of warm-up topics. */
    static final long SWITCH_MS = 2000;

    /**
     * @param switchTopics called with 0, 1, 0, ... every {@link #SWITCH_MS}: the caller routes the
     *                     events to that set of warm-up topics, so the code a new topic takes (first
     *                     batch of a partition) is compiled too, as the run starts on new topics
     */
    static Outcome run(Generator.Config run, YsbCatalog catalog, long maxMillis, EventSink sink,
                       java.util.function.IntConsumer switchTopics) {
        return run(run, new YsbEventCodec(catalog), maxMillis, sink, switchTopics);
    }

    static Outcome run(Generator.Config run, EventCodec codec, long maxMillis, EventSink sink,
                       java.util.function.IntConsumer switchTopics) {
        return run(run, codec, maxMillis, sink, switchTopics, () -> Long.MAX_VALUE);
    }

    /** @param endByEpochMs the rehearsal stops by this wall-clock time too (asked every window: it may move) */
    static Outcome run(Generator.Config run, EventCodec codec, long maxMillis, EventSink sink,
                       java.util.function.IntConsumer switchTopics, java.util.function.LongSupplier endByEpochMs) {
        // a long "duration": the rehearsal is stopped from the watcher thread
        Generator.Config config = new Generator.Config(run.topics(), run.ratePerTopic(),
                Math.max(maxMillis, 1) + 60_000, run.delay(), run.gaps(), run.maxRate());
        Generator g = new Generator(config, 0x5eedL, codec, Clock.SYSTEM, sink,
                new LagStats(run.topics().size(), new java.io.BufferedWriter(java.io.Writer.nullWriter()))); // as the run
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean measurable = jit != null && jit.isCompilationTimeMonitoringSupported();
        long[] last = new long[1];
        boolean[] settled = new boolean[1];
        long start = System.nanoTime();
        switchTopics.accept(0);
        Thread watcher = new Thread(() -> {
            long before = measurable ? jit.getTotalCompilationTime() : 0;
            int set = 0;
            try {
                while (true) {
                    long elapsedMs = (System.nanoTime() - start) / 1_000_000L;
                    if (elapsedMs / SWITCH_MS != set) {
                        set = (int) (elapsedMs / SWITCH_MS);
                        switchTopics.accept(set % 2);
                    }
                    long sleep = Math.min(Math.min(WINDOW_MS, maxMillis - elapsedMs),
                            endByEpochMs.getAsLong() - System.currentTimeMillis());
                    if (sleep <= 0) {
                        break;
                    }
                    Thread.sleep(sleep);
                    if (measurable) {
                        long now = jit.getTotalCompilationTime();
                        last[0] = now - before;
                        before = now;
                        if (System.getenv("KLINK_GENERATOR_DEBUG_WARMUP") != null) {
                            System.err.println("warm-up window: compile ms " + last[0]);
                        }
                        if (elapsedMs + sleep >= MIN_MS && last[0] < SETTLED_COMPILE_MS && sleep == WINDOW_MS) {
                            settled[0] = true;
                            break;
                        }
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            g.abandon();
        }, "klink-generator-warm-up");
        watcher.setDaemon(true);
        watcher.start();
        long events = g.run(System.nanoTime(), System.currentTimeMillis()).eventsSent();
        watcher.interrupt();
        return new Outcome(events, (System.nanoTime() - start) / 1_000_000L, settled[0], last[0]);
    }
}
