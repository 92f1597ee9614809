package io.klink.sampler;

import java.util.HashSet;
import java.util.Set;

/**
 * What the statistics monitor keeps of one sub-stream (thesis §4.1.1): events observed (stragglers included,
 * also after the sub-stream was processed), their network delays, the span of their event times — the mean
 * inter-event generation gap is (last − first) / (events − 1), whatever order they arrive in — and the keys
 * seen: the value statistic of a count-per-key window, whose per-key share 1/K gives the relative variance
 * K − 1. No events are kept.
 */
public final class Substream {

    final long end;
    final RunningStats delays = new RunningStats();
    private final Set<String> keys = new HashSet<>();
    private long firstEventTime = Long.MAX_VALUE;
    private long lastEventTime = Long.MIN_VALUE;

    Substream(long end) {
        this.end = end;
    }

    void observe(String key, long eventTime, long delayMs) {
        delays.add(delayMs);
        keys.add(key);
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
}
