package io.klink.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Event-time tumbling windows counting events per key, with blocking latency markers — the logic of
 * {@link InstrumentedWindowOperator}, free of Flink so it can be tested on scripted sequences.
 *
 * <p>Semantics follow Flink's event-time windows: window {@code [start, end)} with
 * {@code start = t - ((t - offset) mod size)}; it fires on the first watermark {@code w >= end - 1} (the
 * sweeping watermark, DESIGN.md §4); an event whose window already fired is late and dropped (counted).
 * A marker is held by the window its creation time falls in and released right after that window's
 * output, so its latency includes the wait for the window (Klink §6.1.2 "blocking" markers).
 */
public final class TumblingCountWindows implements EventWindows {

    private final long sizeMs;
    private final long offsetMs;
    private final TreeMap<Long, Map<String, long[]>> countsByWindowEnd = new TreeMap<>();
    private final TreeMap<Long, List<Envelope>> markersByWindowEnd = new TreeMap<>();
    private long watermark = Long.MIN_VALUE;
    private long lateSinceLastFiring;

    public TumblingCountWindows(long sizeMs, long offsetMs) {
        if (sizeMs <= 0) {
            throw new IllegalArgumentException("window size must be positive, got " + sizeMs);
        }
        this.sizeMs = sizeMs;
        this.offsetMs = Math.floorMod(offsetMs, sizeMs);
    }

    public long windowEnd(long timestamp) {
        return timestamp - Math.floorMod(timestamp - offsetMs, sizeMs) + sizeMs;
    }

    private boolean swept(long windowEnd) {
        return watermark != Long.MIN_VALUE && windowEnd - 1 <= watermark;
    }

    @Override
    public boolean add(Envelope event) {
        return add(event.key, event.timestamp);
    }

    /** Counts one event; returns false (and counts it as dropped) if its window has already fired. */
    public boolean add(String key, long eventTime) {
        long end = windowEnd(eventTime);
        if (swept(end)) {
            lateSinceLastFiring++;
            return false;
        }
        countsByWindowEnd.computeIfAbsent(end, e -> new HashMap<>()).computeIfAbsent(key, k -> new long[1])[0]++;
        return true;
    }

    /** Holds a marker until its window fires; returns false if that window already fired (forward it now). */
    @Override
    public boolean holdMarker(Envelope marker) {
        long end = windowEnd(marker.timestamp);
        if (swept(end)) {
            return false;
        }
        markersByWindowEnd.computeIfAbsent(end, e -> new ArrayList<>()).add(marker);
        return true;
    }

    /**
     * Advances the watermark and returns, window by window in deadline order, every key's RESULT, then the
     * window's FIRING summary, then the markers it held. Windows that only held markers release them too.
     */
    @Override
    public List<Envelope> advance(long newWatermark, long nowMs) {
        List<Envelope> out = new ArrayList<>();
        if (newWatermark <= watermark) {
            return out;
        }
        watermark = newWatermark;
        while (true) {
            Long nextCounts = countsByWindowEnd.isEmpty() ? null : countsByWindowEnd.firstKey();
            Long nextMarkers = markersByWindowEnd.isEmpty() ? null : markersByWindowEnd.firstKey();
            Long end = min(nextCounts, nextMarkers);
            if (end == null || !swept(end)) {
                return out;
            }
            Map<String, long[]> counts = countsByWindowEnd.remove(end);
            if (counts != null) {
                fire(end, counts, nowMs, out);
            }
            List<Envelope> markers = markersByWindowEnd.remove(end);
            if (markers != null) {
                out.addAll(markers);
            }
        }
    }

    private void fire(long end, Map<String, long[]> counts, long nowMs, List<Envelope> out) {
        long events = 0;
        for (Iterator<Map.Entry<String, long[]>> it = counts.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, long[]> entry = it.next();
            out.add(Envelope.result(entry.getKey(), end, entry.getValue()[0]));
            events += entry.getValue()[0];
        }
        out.add(Envelope.firing(end - sizeMs, end, watermark, nowMs, counts.size(), events, lateSinceLastFiring));
        lateSinceLastFiring = 0;
    }

    private static Long min(Long a, Long b) {
        if (a == null) {
            return b;
        }
        return b == null ? a : Math.min(a, b);
    }

    @Override
    public long watermark() {
        return watermark;
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
