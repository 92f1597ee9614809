package io.klink.sampler;

import java.util.HashSet;
import java.util.Set;

/**
 * What the statistics monitor keeps of one sub-stream (thesis §4.1.1): events observed (stragglers included,
 * also after the sub-stream was processed), their network delays, and the keys seen — the value statistic of
 * a count-per-key window, whose per-key share 1/K gives the relative variance K − 1. No events are kept.
 */
public final class Substream {

    final long end;
    final RunningStats delays = new RunningStats();
    private final Set<String> keys = new HashSet<>();

    Substream(long end) {
        this.end = end;
    }

    void observe(String key, long delayMs) {
        delays.add(delayMs);
        keys.add(key);
    }

    public long observed() {
        return delays.count();
    }

    public int distinctKeys() {
        return keys.size();
    }
}
