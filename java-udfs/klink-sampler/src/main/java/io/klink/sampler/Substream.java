package io.klink.sampler;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the statistics monitor keeps of one sub-stream (thesis §4.1.1): events observed (stragglers included,
 * also after the sub-stream was processed), their network delays, the span of their event times — the mean
 * inter-event generation gap is (last − first) / (events − 1), whatever order they arrive in — and the keys
 * seen, and the running mean and variance of each of the events' numeric fields: what the window's
 * {@link ValueModel} estimates cv² from. No events are kept.
 */
public final class Substream {

    final long end;
    final RunningStats delays = new RunningStats();
    private final Set<String> keys = new HashSet<>();
    private final List<RunningStats> fields = new ArrayList<>();
    private long firstEventTime = Long.MAX_VALUE;
    private long lastEventTime = Long.MIN_VALUE;

    Substream(long end) {
        this.end = end;
    }

    void observe(String key, long eventTime, long delayMs, double[] values) {
        delays.add(delayMs);
        keys.add(key);
        for (int i = 0; values != null && i < values.length; i++) {
            field(i).add(values[i]);
        }
        firstEventTime = Math.min(firstEventTime, eventTime);
        lastEventTime = Math.max(lastEventTime, eventTime);
    }

    /** The mean gap between consecutive generation times (the g_i of §4.1.1), NaN below two events. */
    public double meanGapMs() {
        return observed() < 2 ? Double.NaN : (double) (lastEventTime - firstEventTime) / (observed() - 1);
    }

    public long observed() {
        return delays.count();
    }

    public int distinctKeys() {
        return keys.size();
    }

    /** Running statistics of the events' field {@code i} (empty if no event had it). */
    public RunningStats field(int i) {
        while (fields.size() <= i) {
            fields.add(new RunningStats());
        }
        return fields.get(i);
    }
}
