package io.klink.workloads.tail;

import org.HdrHistogram.Histogram;

/**
 * Algorithm 1 of Du and Gupta (the seed tail-latency-storm-du-gupta.txt, §3.1): from the latencies of the records
 * completed in the last period, the timeout of the next: p90 if p99 > 2·p90 (a long tail: replay aggressively),
 * else p95 if p99.9 > 2·p95, else p99.9 (a short tail: replay only the worst). The percentiles come from an
 * HdrHistogram (3 significant digits) rather than a sorted array; a period with no completed record keeps the
 * timeout it had.
 */
public final class AdaptiveTimeout {

    private final Histogram period = new Histogram(RecordLatencySink.HIGHEST_MICROS, RecordLatencySink.DIGITS);
    private long timeoutMicros = Long.MAX_VALUE;

    public void observe(long latencyMicros) {
        period.recordValue(Math.min(RecordLatencySink.HIGHEST_MICROS, Math.max(0, latencyMicros)));
    }

    /** Ends the period (lines 3–12): sets the next timeout and forgets the period's latencies. */
    public void endPeriod() {
        if (period.getTotalCount() > 0) {
            long p90 = period.getValueAtPercentile(90), p95 = period.getValueAtPercentile(95);
            long p99 = period.getValueAtPercentile(99), p999 = period.getValueAtPercentile(99.9);
            timeoutMicros = p99 > 2 * p90 ? p90 : p999 > 2 * p95 ? p95 : p999;
        }
        period.reset();
    }

    /** The current timeout; {@code Long.MAX_VALUE} (never replay) before the first period with completions. */
    public long timeoutMicros() {
        return timeoutMicros;
    }
}
