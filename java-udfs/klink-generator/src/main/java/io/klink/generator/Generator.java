package io.klink.generator;

import java.util.List;

/**
 * The generation + send loop: one thread, no per-event objects of its own.
 *
 * <p>Each topic has its own generation cursor: its next event's offset, one {@link Gaps} after the
 * previous one. Topics are visited round robin and every event is generated as soon as its event time
 * has come (with regular gaps: event {@code k} of topics 0..Q-1, then {@code k+1}, ...), then put into a {@link SendQueue} keyed
 * by scheduled send time = event time + sampled delay. Every event whose send time has come is
 * rendered and handed to the {@link EventSink}, which hears of the end of each such burst. With {@code maxRate} the schedule is ignored: events
 * are sent back to back for the duration, with event time = the moment they are generated.
 */
public final class Generator {

    /** Events generated or sent per loop iteration before the loop looks at the clock/rows again. */
    private static final int CHUNK = 4096;
    private static final long MAX_PARK_NANOS = 50_000_000L;
    /** Event-time spacing of the progress records sent after the last event (see {@link #sendProgressAfterEnd}). */
    static final long PROGRESS_GAP_NANOS = 50_000_000L;
    /** The packed value of a progress record: no codec draws it (their fields are non-negative). */
    static final long PROGRESS = Long.MIN_VALUE;
    /** A progress record's value: a line the jobs' deserializers turn into a watermark-only envelope. */
    public static final String PROGRESS_PREFIX = "#progress,";

    /** What to generate. {@code ratePerTopic} is ignored when {@code maxRate}. */
    public record Config(List<String> topics, long ratePerTopic, long durationMs, DelayModel delay, Gaps gaps,
                         boolean maxRate) {

        /** Regular gaps: the exact {@link Schedule} at {@code ratePerTopic}. */
        public Config(List<String> topics, long ratePerTopic, long durationMs, DelayModel delay, boolean maxRate) {
            this(topics, ratePerTopic, durationMs, delay,
                    Gaps.regular(new Schedule(maxRate ? 1 : ratePerTopic)), maxRate);
        }
    }

    /** Outcome of a run; times are nanoseconds since the start unless named otherwise. */
    public record Result(boolean interrupted, long eventsSent, long eventsScheduled, long[] sentPerTopic,
                         long[] scheduledPerTopic, long behindEvents, long maxLagNanos, double lagP99Ms,
                         long elapsedNanos, double achievedRate) {

        public double behindFraction() {
            return eventsScheduled == 0 ? 0.0 : (double) behindEvents / eventsScheduled;
        }

        /** The coordinated-omission flag: more than 1 % of the events were sent late. */
        public boolean fellBehind() {
            return behindFraction() > 0.01;
        }
    }

    private final Config config;
    private final int topics;
    private final Schedule schedule;
    private final long endOffsetNanos;
    private final SeedStreams seeds;
    private final EventCodec[] codecs;  // by topic
    private final SendQueue queue;
    private final Clock clock;
    private final EventSink sink;
    private final LagStats stats;
    private DelayHistogram sentDelays;
    private volatile boolean stopRequested;
    private volatile boolean skipEndAccounting;

    // generation cursors: topic t's next event is its number generatedCount[t], at offset nextOffset[t] ns
    private long startMs;
    // progress after the end: the next progress record's offset, and the offset after the last one (0 = none)
    private long nextProgressOffset;
    private long progressEndNanos;
    private final long[] nextOffset;
    private final long[] generatedCount;
    private int genTopic;

    public Generator(Config config, long seed, YsbCatalog catalog, Clock clock, EventSink sink, LagStats stats) {
        this(config, seed, new YsbEventCodec(catalog), clock, sink, stats);
    }

    public Generator(Config config, long seed, EventCodec codec, Clock clock, EventSink sink, LagStats stats) {
        this.config = config;
        this.topics = config.topics().size();
        this.schedule = new Schedule(config.maxRate() ? 1 : config.ratePerTopic());
        this.endOffsetNanos = config.maxRate() ? Long.MAX_VALUE : config.durationMs() * 1_000_000L;
        this.nextOffset = new long[topics];
        this.generatedCount = new long[topics];
        this.seeds = SeedStreams.of(seed, topics);
        this.codecs = new EventCodec[topics];
        for (int t = 0; t < topics; t++) {
            codecs[t] = codec.forTopic(t);
        }
        this.queue = SendQueue.forSchedule(config.delay(), config.gaps());
        this.clock = clock;
        this.sink = sink;
        this.stats = stats;
    }

    /** Counts the delay every event is actually sent with (send time − event time) into {@code h}. */
    public void recordSentDelays(DelayHistogram h) {
        this.sentDelays = h;
    }

    /**
     * After the last event, sends every topic progress records (one per {@link #PROGRESS_GAP_NANOS} of event
     * time, each with a delay drawn from the delay model like an event's) up to event time end + {@code leadMs}:
     * with {@code leadMs} = the job's watermark bound B, its watermark then passes the end of generation, so
     * every window ending at or before it fires as it would in a stream that went on — none is censored.
     */
    public void sendProgressAfterEnd(long leadMs) {
        if (config.maxRate() || leadMs < 0) {
            throw new IllegalArgumentException("progress after the end needs a scheduled run and a lead >= 0");
        }
        nextProgressOffset = endOffsetNanos;
        progressEndNanos = endOffsetNanos + leadMs * 1_000_000L + PROGRESS_GAP_NANOS;
    }

    /** Asks the loop to stop at its next iteration (from a shutdown hook, any thread). */
    public void requestStop() {
        stopRequested = true;
    }

    /** Stops like {@link #requestStop()} but skips counting the unsent events (the warm-up's end). */
    void abandon() {
        skipEndAccounting = true;
        stopRequested = true;
    }

    public boolean stopRequested() {
        return stopRequested;
    }

    /**
     * Runs to completion or until {@link #requestStop()}.
     *
     * @param t0Nanos {@code clock.nanoTime()} at the run's start, i.e. when the wall clock read {@code startMs}
     * @param startMs event time of event 0, epoch ms
     */
    public Result run(long t0Nanos, long startMs) {
        this.startMs = startMs;
        return config.maxRate() ? runMaxRate(t0Nanos) : runScheduled(t0Nanos);
    }

    private Result runScheduled(long t0) {
        while (!stopRequested) {
            long now = clock.nanoTime() - t0;
            int generated = generateUntil(now, CHUNK) + generateProgressUntil(now);
            stats.emitRows(now, generatedUntil(), queue.isEmpty() ? Long.MAX_VALUE : queue.peekSendAt());
            int sent = 0;
            while (sent < CHUNK && !queue.isEmpty() && queue.peekSendAt() <= now) {
                sendHead(now);
                sent++;
                now = clock.nanoTime() - t0;
            }
            if (sent > 0) {
                sink.endOfBurst();
            }
            if (allGenerated() && queue.isEmpty() && nextProgressDue() == Long.MAX_VALUE) {
                break;
            }
            if (generated == 0 && sent == 0) {
                long next = Math.min(Math.min(generatedUntil(), nextProgressDue()),
                        queue.isEmpty() ? Long.MAX_VALUE : queue.peekSendAt());
                next = Math.min(next, stats.nextRowBoundaryNanos());
                long wait = next - (clock.nanoTime() - t0);
                if (wait > 0) {
                    clock.parkNanos(Math.min(wait, MAX_PARK_NANOS));
                }
            }
        }
        return finish(clock.nanoTime() - t0);
    }

    private Result runMaxRate(long t0) {
        long durationNanos = config.durationMs() * 1_000_000L;
        while (!stopRequested) {
            long now = clock.nanoTime() - t0;
            if (now >= durationNanos) {
                break;
            }
            for (int i = 0; i < CHUNK; i++) {
                int t = genTopic;
                long packed = codecs[t].draw(seeds.events[t]);
                stats.onScheduled(now);
                queue.add(now, startMs + now / 1_000_000L, t, packed);
                sendHead(now);
                if (++genTopic == topics) {
                    genTopic = 0;
                }
                now = clock.nanoTime() - t0;
            }
            sink.endOfBurst();
            stats.emitRows(now, now, Long.MAX_VALUE);
        }
        return finish(clock.nanoTime() - t0);
    }

    /**
     * Generates up to {@code budget} events whose event time is {@code <= now}, visiting the topics round
     * robin until none has an event due.
     */
    private int generateUntil(long now, int budget) {
        int n = 0;
        for (int idle = 0; n < budget && idle < topics; ) {
            int t = genTopic;
            long offset = nextOffset[t];
            if (offset <= now && offset < endOffsetNanos) {
                generate(t, offset);
                n++;
                idle = 0;
            } else {
                idle++;
            }
            if (++genTopic == topics) {
                genTopic = 0;
            }
        }
        return n;
    }

    private void generate(int t, long offset) {
        long packed = codecs[t].draw(seeds.events[t]);
        long delayMs = config.delay().sampleDelayMs(seeds.delays[t]);
        if (delayMs < 0) {
            throw new IllegalStateException("delay model " + config.delay().spec() + " sampled " + delayMs);
        }
        long sendAt = offset + delayMs * 1_000_000L;
        queue.add(sendAt, startMs + offset / 1_000_000L, t, packed);
        stats.onScheduled(sendAt);
        nextOffset[t] = config.gaps().nextOffsetNanos(generatedCount[t]++, offset, seeds.gaps[t]);
    }

    /** Adds the progress records due by {@code now}, once every event is generated (so the FIFO stays ordered). */
    private int generateProgressUntil(long now) {
        int n = 0;
        while (nextProgressDue() <= now && allGenerated()) {
            for (int t = 0; t < topics; t++) {
                long delayMs = config.delay().sampleDelayMs(seeds.delays[t]);
                queue.add(nextProgressOffset + delayMs * 1_000_000L, startMs + nextProgressOffset / 1_000_000L, t,
                        PROGRESS);
                n++;
            }
            nextProgressOffset += PROGRESS_GAP_NANOS;
        }
        return n;
    }

    private long nextProgressDue() {
        return nextProgressOffset < progressEndNanos ? nextProgressOffset : Long.MAX_VALUE;
    }

    /** Every event with a scheduled send time before this has been generated. */
    private long generatedUntil() {
        long until = Long.MAX_VALUE;
        for (long offset : nextOffset) {
            if (offset < endOffsetNanos && offset < until) {
                until = offset;
            }
        }
        return until;
    }

    private boolean allGenerated() {
        return generatedUntil() == Long.MAX_VALUE;
    }

    private void sendHead(long now) {
        long scheduled = queue.peekSendAt();
        int t = queue.peekTopic();
        long eventTimeMs = queue.peekEventTimeMs();
        if (queue.peekPacked() == PROGRESS) {  // not an event: no statistics
            queue.removeFirst();
            sink.send(t, (PROGRESS_PREFIX + eventTimeMs).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return;
        }
        if (sentDelays != null) {
            sentDelays.add(startMs + now / 1_000_000L - eventTimeMs);
        }
        byte[] value = codecs[t].encode(queue.peekPacked(), eventTimeMs);
        queue.removeFirst();
        sink.send(t, value);
        stats.onSent(t, scheduled, now);
    }

    private Result finish(long now) {
        boolean interrupted = stopRequested && !(allGenerated() && queue.isEmpty());
        long[] scheduledPerTopic = new long[topics];
        long overdue = 0;
        if (interrupted && !config.maxRate() && !skipEndAccounting) {
            generateUntil(now, Integer.MAX_VALUE);
            for (int i = 0; i < queue.size(); i++) {
                long sendAt = queue.sendAtAt(i);
                if (queue.packedAt(i) == PROGRESS) {
                    continue;
                }
                if (sendAt <= now) {
                    overdue++;
                    scheduledPerTopic[queue.topicAt(i)]++;
                    stats.onUnsentAtEnd(sendAt, now);
                } else {
                    stats.onCancelled(sendAt);
                }
            }
        }
        long[] sentPerTopic = new long[topics];
        for (int t = 0; t < topics; t++) {
            sentPerTopic[t] = stats.sentOfTopic(t);
            scheduledPerTopic[t] += sentPerTopic[t];
        }
        stats.finish(now);
        return new Result(interrupted, stats.totalSent(), stats.totalSent() + overdue, sentPerTopic,
                scheduledPerTopic, stats.totalBehind(), stats.maxLagNanos(), stats.lagPercentileMs(99), now,
                achievedRate(interrupted));
    }

    /**
     * Events sent per second. A run that went to its end: over the generation span (the duration) plus
     * how late the last send was, so that a run that kept its schedule reports exactly Q x rate whatever
     * the delays — a send window from the first to the last scheduled send would stretch by the spread of
     * the delays (up to 400 ms with uniform:0-400ms: 98 % of a 20 s run's rate, read as "behind").
     * Interrupted: over the send window, from the first scheduled send to the later of the last actual
     * and last scheduled send, plus one schedule slot (1/rate). In max-rate mode: events / (last - first send).
     */
    private double achievedRate(boolean interrupted) {
        long n = stats.totalSent();
        if (n == 0) {
            return 0.0;
        }
        if (!config.maxRate() && !interrupted) {
            long late = Math.max(0, stats.lastActualSend() - stats.lastScheduledSend());
            return n * 1e9 / (endOffsetNanos + late);
        }
        long slot = config.maxRate() ? 0 : 1_000_000_000L / schedule.ratePerTopic();
        long window = Math.max(stats.lastActualSend(), stats.lastScheduledSend()) - stats.firstScheduledSend() + slot;
        return window <= 0 ? 0.0 : n * 1e9 / window;
    }
}
