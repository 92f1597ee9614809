package io.klink.generator;

/**
 * The per-topic schedule: event {@code k} of every topic has event time
 * {@code start + k * 1e9 / rate} ns, i.e. {@code start_ms + floor(k * 1000 / rate)} ms. All arithmetic
 * is exact integer arithmetic (no accumulated floating-point drift).
 */
public final class Schedule {

    /** Keeps {@code (k % rate) * 1e9} inside a long. */
    public static final long MAX_RATE = 1_000_000_000L;

    private final long ratePerTopic;

    public Schedule(long ratePerTopic) {
        if (ratePerTopic <= 0 || ratePerTopic > MAX_RATE) {
            throw new IllegalArgumentException("rate must be in 1.." + MAX_RATE + ", got " + ratePerTopic);
        }
        this.ratePerTopic = ratePerTopic;
    }

    public long ratePerTopic() {
        return ratePerTopic;
    }

    /** Offset of event {@code k} from the start, in ns: {@code floor(k * 1e9 / rate)}, overflow-free. */
    public long offsetNanos(long k) {
        return (k / ratePerTopic) * 1_000_000_000L + (k % ratePerTopic) * 1_000_000_000L / ratePerTopic;
    }

    /** Event time in epoch ms of event {@code k}: {@code startMs + floor(k * 1000 / rate)}. */
    public long eventTimeMs(long startMs, long k) {
        return startMs + Math.floorDiv(offsetNanos(k), 1_000_000L);
    }

    /** Number of events per topic whose offset lies in {@code [0, durationMs)}: ceil(duration * rate / 1000). */
    public long eventsPerTopic(long durationMs) {
        long numerator = Math.multiplyExact(durationMs, ratePerTopic);
        return Math.floorDiv(numerator + 999, 1000L);
    }
}
