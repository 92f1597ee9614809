package io.klink.sim;

import io.klink.generator.DelayModel;
import io.klink.generator.Gaps;
import java.util.SplittableRandom;

/**
 * One query's events as the generator makes them (klink-generator: the same schedule, gap model, delay
 * model and random streams for the same seed): event k has event time start + offset_k and reaches Kafka
 * delay_k later. Events are held by arrival ms until the simulation's clock reaches it. After generation the
 * generator's progress records move event time on by B and the delay's tail, so every window of the run fires.
 */
final class Arrivals {

    /** Event-time spacing of the generator's progress records (io.klink.generator.Generator.PROGRESS_GAP_NANOS). */
    static final long PROGRESS_GAP_MS = 50;

    private final long startMs;
    private final long endMs;
    private final DelayModel delay;
    private final Gaps gaps;
    private final SplittableRandom delayRng;
    private final SplittableRandom gapRng;
    private final long progressUntilMs;
    private final int eventsPerDelay;
    private long k;
    private long groupEventTime = Long.MIN_VALUE;
    private int groupLeft;
    private long groupDelayMs;
    private long nextOffsetNanos;
    private long generated;
    private long[][] times = new long[1024][];  // by arrival ms mod capacity: event times, then counts
    private int[] sizes = new int[1024];

    Arrivals(long startMs, long durationMs, DelayModel delay, Gaps gaps, SplittableRandom delayRng,
             SplittableRandom gapRng, long progressAfterEndMs, int eventsPerDelay) {
        this.startMs = startMs;
        this.endMs = startMs + durationMs;
        this.delay = delay;
        this.gaps = gaps;
        this.delayRng = delayRng;
        this.gapRng = gapRng;
        this.progressUntilMs = endMs + progressAfterEndMs + PROGRESS_GAP_MS;
        this.eventsPerDelay = eventsPerDelay;
    }

    long generated() {
        return generated;
    }

    /** Generates the events of event-time ms {@code now} and moves those arriving at {@code now} into the backlog. */
    void deliver(long now, ElementQueue backlog) {
        generate(now);
        int slot = slot(now);
        long[] slotTimes = times[slot];
        for (int i = 0; i < sizes[slot]; i++) {
            backlog.pushRecords(slotTimes[2 * i], slotTimes[2 * i + 1], now);
        }
        sizes[slot] = 0;
        if (now >= endMs && now <= progressUntilMs && (now - endMs) % PROGRESS_GAP_MS == 0) {
            backlog.pushProgress(now, now);
        }
    }

    private void generate(long now) {
        while (startMs + nextOffsetNanos / 1_000_000L <= now) {
            long eventTime = startMs + nextOffsetNanos / 1_000_000L;
            if (eventTime >= endMs) {
                return;
            }
            long arrival = eventTime + delayOf(eventTime);
            add(Math.max(arrival, now), eventTime);
            generated++;
            nextOffsetNanos = gaps.nextOffsetNanos(k++, nextOffsetNanos, gapRng);
        }
    }

    /**
     * One delay per event (the generator's), or with {@code eventsPerDelay} > 1 one per that many events of the same
     * event-time ms: the same delay distribution, coarser arrivals, fewer elements to move (paper-scale runs).
     */
    private long delayOf(long eventTime) {
        if (groupLeft == 0 || eventTime != groupEventTime) {
            groupDelayMs = delay.sampleDelayMs(delayRng);
            groupEventTime = eventTime;
            groupLeft = eventsPerDelay;
        }
        groupLeft--;
        return groupDelayMs;
    }

    private void add(long arrivalMs, long eventTime) {
        while (arrivalMs - lastPending() >= times.length) {
            grow();
        }
        int slot = slot(arrivalMs);
        int n = sizes[slot];
        long[] slotTimes = times[slot];
        if (n > 0 && slotTimes[2 * n - 2] == eventTime) {
            slotTimes[2 * n - 1]++;
            return;
        }
        if (slotTimes == null || slotTimes.length < 2 * n + 2) {
            long[] bigger = new long[Math.max(8, 2 * (2 * n + 2))];
            if (slotTimes != null) {
                System.arraycopy(slotTimes, 0, bigger, 0, 2 * n);
            }
            times[slot] = slotTimes = bigger;
        }
        slotTimes[2 * n] = eventTime;
        slotTimes[2 * n + 1] = 1;
        sizes[slot] = n + 1;
    }

    /** The earliest arrival ms still held: the event-time ms being generated (delays are never negative). */
    private long lastPending() {
        return startMs + nextOffsetNanos / 1_000_000L;
    }

    private int slot(long ms) {
        return (int) Math.floorMod(ms, (long) times.length);
    }

    private void grow() {
        int n = times.length * 2;
        long[][] t = new long[n][];
        int[] s = new int[n];
        long from = lastPending();
        for (long ms = from; ms < from + times.length; ms++) {
            int old = slot(ms);
            int now = (int) Math.floorMod(ms, (long) n);
            t[now] = times[old];
            s[now] = sizes[old];
        }
        times = t;
        sizes = s;
    }
}
