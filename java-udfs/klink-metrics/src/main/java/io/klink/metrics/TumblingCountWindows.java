package io.klink.metrics;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Event-time tumbling windows counting events per key (weighted: a sampled event counts for its weight), with blocking latency markers — the logic of
 * {@link InstrumentedWindowOperator}, free of Flink so it can be tested on scripted sequences.
 *
 * <p>Semantics follow Flink's event-time windows: window {@code [start, end)} with
 * {@code start = t - ((t - offset) mod size)}; it fires on the first watermark {@code w >= end - 1} (the
 * sweeping watermark, DESIGN.md §4); an event whose window already fired is late and dropped (counted).
 * A marker is held by the window its creation time falls in and released right after that window's
 * output, so its latency includes the wait for the window (Klink §6.1.2 "blocking" markers).
 */
public final class TumblingCountWindows extends MarkerHoldingWindows {

    private final long sizeMs;
    private final long offsetMs;
    private final TreeMap<Long, Map<String, double[]>> countsByWindowEnd = new TreeMap<>();

    public TumblingCountWindows(long sizeMs, long offsetMs) {
        if (sizeMs <= 0) {
            throw new IllegalArgumentException("window size must be positive, got " + sizeMs);
        }
        this.sizeMs = sizeMs;
        this.offsetMs = Math.floorMod(offsetMs, sizeMs);
    }

    public long windowEnd(long timestamp) {
        return windowEnd(timestamp, sizeMs, offsetMs);
    }

    /** End of the tumbling window {@code [start, start + size)} holding {@code timestamp} (Flink's alignment). */
    public static long windowEnd(long timestamp, long sizeMs, long offsetMs) {
        return timestamp - Math.floorMod(timestamp - offsetMs, sizeMs) + sizeMs;
    }

    @Override
    public boolean add(Envelope event) {
        return add(event.key, event.timestamp, event.weight);
    }

    public boolean add(String key, long eventTime) {
        return add(key, eventTime, 1.0);
    }

    /** Counts one event as {@code weight} events; false (and counted as dropped) if its window already fired. */
    public boolean add(String key, long eventTime, double weight) {
        long end = windowEnd(eventTime);
        if (swept(end)) {
            return late();
        }
        double[] countAndEvents = countsByWindowEnd.computeIfAbsent(end, e -> new HashMap<>())
                .computeIfAbsent(key, k -> new double[2]);
        countAndEvents[0] += weight;
        countAndEvents[1]++;
        return true;
    }

    @Override
    protected long markerWindowEnd(long timestamp) {
        return windowEnd(timestamp);
    }

    @Override
    protected void fire(long end, long nowMs, List<Envelope> out) {
        Map<String, double[]> counts = countsByWindowEnd.remove(end);
        long events = 0;
        for (Map.Entry<String, double[]> entry : counts.entrySet()) {
            Envelope result = Envelope.result(entry.getKey(), end, Math.round(entry.getValue()[0]));
            result.weight = entry.getValue()[0];
            out.add(result);
            events += (long) entry.getValue()[1];
        }
        out.add(firing(end - sizeMs, end, nowMs, counts.size(), events));
    }

    /** Event time (ms) at which the earliest open window ends (its deadline), Long.MAX_VALUE if none is open. */
    @Override
    public long nextDeadline() {
        return countsByWindowEnd.isEmpty() ? Long.MAX_VALUE : countsByWindowEnd.firstKey();
    }

    public int openWindows() {
        return countsByWindowEnd.size();
    }
}
