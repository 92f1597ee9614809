package io.klink.scheduler;

/**
 * Estimates how many records wait for a source task outside Flink (in Kafka), from what the task
 * shows: its watermark and its records-in counter. A source's backlog is invisible to Flink's queues,
 * yet it is the largest part of a query's drain cost (the paper's cost term of Eq. 1) whenever the
 * scheduler has paused the source.
 *
 * <p>Model: ingestion lag = now − source watermark. When the source keeps up, the lag is its floor
 * (network delay + watermark bound + emission period); everything above the floor is time's worth
 * of records not yet read. Backlog = arrival rate × (lag − floor). The floor is the smallest lag seen
 * (conservative under random delays: it over- rather than under-estimates the backlog); the arrival
 * rate is records read per ms over a window of at least {@link #RATE_WINDOW_MS}, which equals the
 * arrival rate whenever the query keeps up on average. Lag within {@code toleranceMs} of the floor
 * counts as no backlog: watermarks advance in steps (one per emission period), so the lag of a source
 * that keeps up swings by up to one period.
 */
public final class SourceBacklog {

    public static final long RATE_WINDOW_MS = 10_000;

    private final long toleranceMs;
    private long minLagMs = Long.MAX_VALUE;
    private long windowStartMs = -1;
    private long windowStartRecords;
    private double recordsPerMs;

    /** @param toleranceMs lag above the floor still read as "keeping up" (e.g. the watermark period) */
    public SourceBacklog(long toleranceMs) {
        if (toleranceMs < 0) {
            throw new IllegalArgumentException("toleranceMs must be >= 0, got " + toleranceMs);
        }
        this.toleranceMs = toleranceMs;
    }

    /** Records waiting outside Flink for this source now; 0 until a watermark and a rate are known. */
    public long update(long nowMs, long watermarkMs, long recordsIn) {
        updateRate(nowMs, recordsIn);
        if (watermarkMs == TaskSnapshot.NO_WATERMARK) {
            return 0;
        }
        long lag = nowMs - watermarkMs;
        minLagMs = Math.min(minLagMs, lag);
        return Math.round(recordsPerMs * Math.max(0, lag - minLagMs - toleranceMs));
    }

    /** Records read per ms, as last estimated. */
    public double recordsPerMs() {
        return recordsPerMs;
    }

    private void updateRate(long nowMs, long recordsIn) {
        if (windowStartMs < 0) {
            windowStartMs = nowMs;
            windowStartRecords = recordsIn;
            return;
        }
        long span = nowMs - windowStartMs;
        if (span >= RATE_WINDOW_MS) {
            recordsPerMs = Math.max(0, recordsIn - windowStartRecords) / (double) span;
            windowStartMs = nowMs;
            windowStartRecords = recordsIn;
        } else if (recordsPerMs == 0 && span > 0) {
            recordsPerMs = Math.max(0, recordsIn - windowStartRecords) / (double) span; // first estimate
        }
    }
}
