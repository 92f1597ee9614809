package io.klink.generator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Arrays;

/**
 * How far behind its schedule the generator is (coordinated omission, DESIGN.md section 4).
 *
 * <p>All times are nanoseconds since the run's start; row {@code s} covers {@code [s, s+1)} seconds
 * of the run ({@code start_ms} in the summary anchors it to the wall clock). Definitions:
 * <ul>
 *   <li><b>scheduled send time</b> of an event = its event time + its sampled delay;</li>
 *   <li><b>actual send time</b> = when the generator hands it to the Kafka producer (the producer's
 *       own batching after that is part of the network path, not of the generator's lag);</li>
 *   <li><b>lag</b> = actual − scheduled send time; an event is <b>behind</b> if its lag exceeds
 *       {@link #BEHIND_THRESHOLD_NANOS} (10 ms). At the end of a run, events whose send time had
 *       passed but that were never sent count as behind if they were overdue by more than 10 ms.</li>
 * </ul>
 * CSV columns: {@code second} (0-based), {@code sent} (events actually sent in that second),
 * {@code scheduled} (events whose scheduled send time lies in that second), {@code behind_events}
 * (events sent in that second that were behind), {@code max_lag_ms} (largest lag of those events, or,
 * if larger, how long the oldest event still waiting at the end of the second was overdue).
 * A row is written once the second is over and every event that could be scheduled in it has been
 * generated; the file is flushed after every row so rows survive a crash.
 */
public final class LagStats {

    public static final long BEHIND_THRESHOLD_NANOS = 10_000_000L;
    public static final String HEADER = "second,sent,scheduled,behind_events,max_lag_ms";
    private static final long SEC = 1_000_000_000L;

    private final Writer csv;
    private final long[] sentPerTopic;
    private long[] sent = new long[64];
    private long[] scheduled = new long[64];
    private long[] behind = new long[64];
    private long[] maxLag = new long[64];
    private int nextRow;

    private long totalSent;
    private long totalBehind;
    private long maxLagNanos;
    /** Send lag of every event (µs, clamped to its range so recording never resizes or branches out). */
    private final org.HdrHistogram.Histogram lagMicros = new org.HdrHistogram.Histogram(MAX_LAG_MICROS, 2);
    private static final long MAX_LAG_MICROS = 3_600_000_000L;
    private long firstScheduledSend = Long.MAX_VALUE;
    private long lastScheduledSend = Long.MIN_VALUE;
    private long firstActualSend = Long.MAX_VALUE;
    private long lastActualSend = Long.MIN_VALUE;

    /** @param csv where rows go (header written now), or null to keep counts only */
    public LagStats(int topics, Writer csv) {
        this.sentPerTopic = new long[topics];
        this.csv = csv;
        if (csv != null) {
            try {
                csv.write(HEADER + "\n");
                csv.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** An event was generated whose scheduled send time is {@code sendAtNanos}. */
    public void onScheduled(long sendAtNanos) {
        int s = second(sendAtNanos);
        ensure(s);
        scheduled[s]++;
    }

    /** An event scheduled for {@code scheduledNanos} was handed to the producer at {@code actualNanos}. */
    public void onSent(int topic, long scheduledNanos, long actualNanos) {
        int s = second(actualNanos);
        ensure(s);
        sent[s]++;
        totalSent++;
        sentPerTopic[topic]++;
        long lag = actualNanos - scheduledNanos;
        // Branch-free on purpose: a branch the warm-up never (or only once) took is compiled as an
        // uncommon trap, and taking it in the run deoptimises the whole send loop for seconds.
        long isBehind = (BEHIND_THRESHOLD_NANOS - lag) >>> 63; // 1 if lag > threshold
        behind[s] += isBehind;
        totalBehind += isBehind;
        maxLag[s] = Math.max(maxLag[s], lag);
        lagMicros.recordValue(Math.min(MAX_LAG_MICROS, Math.max(0, lag / 1000)));
        firstScheduledSend = Math.min(firstScheduledSend, scheduledNanos);
        lastScheduledSend = Math.max(lastScheduledSend, scheduledNanos);
        firstActualSend = Math.min(firstActualSend, actualNanos);
        lastActualSend = Math.max(lastActualSend, actualNanos);
    }

    /** At the end of an interrupted run: a generated event whose send time had not come; never sent. */
    public void onCancelled(long sendAtNanos) {
        int s = second(sendAtNanos);
        ensure(s);
        scheduled[s]--;
    }

    /** At the end of a run: an event due at {@code scheduledNanos} was never sent. */
    public void onUnsentAtEnd(long scheduledNanos, long nowNanos) {
        int s = second(nowNanos);
        ensure(s);
        long lag = nowNanos - scheduledNanos;
        if (lag > BEHIND_THRESHOLD_NANOS) {
            behind[s]++;
            totalBehind++;
        }
        if (lag > maxLag[s]) {
            maxLag[s] = lag;
        }
        lagMicros.recordValue(Math.min(MAX_LAG_MICROS, Math.max(0, lag / 1000)));
    }

    /**
     * Writes the rows of all seconds that ended before both {@code nowNanos} and
     * {@code generatedUntilNanos} (events with a scheduled send time before it are all generated).
     *
     * @param oldestPendingSendAt smallest scheduled send time among generated, unsent events
     *                            ({@code Long.MAX_VALUE} if none)
     */
    public void emitRows(long nowNanos, long generatedUntilNanos, long oldestPendingSendAt) {
        long limit = Math.min(nowNanos, generatedUntilNanos);
        if ((nextRow + 1L) * SEC > limit) {
            return;
        }
        while ((nextRow + 1L) * SEC <= limit) {
            writeRow(nextRow++, oldestPendingSendAt);
        }
        flush();
    }

    /** End of the run at {@code nowNanos}: rows for all remaining full seconds and a non-empty last one. */
    public void finish(long nowNanos) {
        int lastFull = second(nowNanos);
        while (nextRow < lastFull) {
            writeRow(nextRow++, Long.MAX_VALUE);
        }
        if (nextRow == lastFull && nextRow < sent.length && (sent[nextRow] > 0 || behind[nextRow] > 0)) {
            writeRow(nextRow++, Long.MAX_VALUE);
        }
        flush();
    }

    /** Start of the next row still to be written; the loop wakes up for it. */
    public long nextRowBoundaryNanos() {
        return (nextRow + 1L) * SEC;
    }

    private void writeRow(int s, long oldestPendingSendAt) {
        ensure(s);
        long lag = maxLag[s];
        long end = (s + 1L) * SEC;
        if (oldestPendingSendAt < end) {
            lag = Math.max(lag, end - oldestPendingSendAt);
        }
        maxLagNanos = Math.max(maxLagNanos, lag);
        if (csv != null) {
            try {
                csv.write(s + "," + sent[s] + "," + scheduled[s] + "," + behind[s] + "," + millis(lag) + "\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private void flush() {
        if (csv != null) {
            try {
                csv.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Nanoseconds as milliseconds with 3 decimals, e.g. {@code 12.345}. */
    static String millis(long nanos) {
        long micros = Math.max(0, nanos) / 1_000;
        long frac = micros % 1_000;
        return (micros / 1_000) + "." + (frac < 10 ? "00" : frac < 100 ? "0" : "") + frac;
    }

    private static int second(long nanos) {
        return (int) (Math.max(0, nanos) / SEC);
    }

    private void ensure(int s) {
        if (s >= sent.length) {
            int n = Math.max(s + 1, sent.length * 2);
            sent = Arrays.copyOf(sent, n);
            scheduled = Arrays.copyOf(scheduled, n);
            behind = Arrays.copyOf(behind, n);
            maxLag = Arrays.copyOf(maxLag, n);
        }
    }

    // ---- totals -----------------------------------------------------------------------------

    public long totalSent() {
        return totalSent;
    }

    public long totalBehind() {
        return totalBehind;
    }

    public long sentOfTopic(int topic) {
        return sentPerTopic[topic];
    }

    /** The {@code percentile} (0–100) of the send lag over every event counted, ms (sent and unsent at the end). */
    public double lagPercentileMs(double percentile) {
        return lagMicros.getValueAtPercentile(percentile) / 1000.0;
    }

    /** Largest lag seen, including sent events, waiting events at row ends, and unsent ones at the end. */
    public long maxLagNanos() {
        long m = maxLagNanos;
        for (int s = nextRow; s < maxLag.length; s++) {
            m = Math.max(m, maxLag[s]);
        }
        return m;
    }

    public long firstScheduledSend() {
        return firstScheduledSend;
    }

    public long lastScheduledSend() {
        return lastScheduledSend;
    }

    public long firstActualSend() {
        return firstActualSend;
    }

    public long lastActualSend() {
        return lastActualSend;
    }
}
