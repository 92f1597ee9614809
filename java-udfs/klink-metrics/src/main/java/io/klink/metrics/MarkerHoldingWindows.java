package io.klink.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * What every {@link EventWindows} shares: the watermark, the sweeping rule (a window fires on the first
 * watermark {@code w >= end - 1}, DESIGN.md §4), the late-event count of the next FIRING, and the blocking
 * markers each window holds until its output is out. Subclasses keep the window contents and fire them.
 */
public abstract class MarkerHoldingWindows implements EventWindows {

    private final TreeMap<Long, List<Envelope>> markersByEnd = new TreeMap<>();
    private long watermark = Long.MIN_VALUE;
    private long lateSinceLastFiring;

    /** End of the window a marker created at {@code timestamp} waits for. */
    protected abstract long markerWindowEnd(long timestamp);

    /** Emits the RESULTs and the FIRING (built with {@link #firing}) of the data window ending at {@code end}. */
    protected abstract void fire(long end, long nowMs, List<Envelope> out);

    /** Called once every swept window has fired (e.g. to forget windows swept without data). */
    protected void afterSweep() {
    }

    protected final boolean swept(long windowEnd) {
        return watermark != Long.MIN_VALUE && windowEnd - 1 <= watermark;
    }

    /** Counts an event whose windows all fired already; returns false for {@link #add}. */
    protected final boolean late() {
        lateSinceLastFiring++;
        return false;
    }

    /** The FIRING summary of a window, with the late events counted since the previous one. */
    protected final Envelope firing(long start, long end, long nowMs, int keys, long events) {
        Envelope summary = Envelope.firing(start, end, watermark, nowMs, keys, events, lateSinceLastFiring);
        lateSinceLastFiring = 0;
        return summary;
    }

    @Override
    public final boolean holdMarker(Envelope marker) {
        long end = markerWindowEnd(marker.timestamp);
        if (swept(end)) {
            return false;
        }
        markersByEnd.computeIfAbsent(end, e -> new ArrayList<>()).add(marker);
        return true;
    }

    /**
     * Advances the watermark and returns, window by window in deadline order, every key's RESULT, then the
     * window's FIRING summary, then the markers it held. Windows that only held markers release them too.
     */
    @Override
    public final List<Envelope> advance(long newWatermark, long nowMs) {
        List<Envelope> out = new ArrayList<>();
        if (newWatermark <= watermark) {
            return out;
        }
        watermark = newWatermark;
        while (true) {
            long dataEnd = nextDeadline();
            long markerEnd = markersByEnd.isEmpty() ? Long.MAX_VALUE : markersByEnd.firstKey();
            long end = Math.min(dataEnd, markerEnd);
            if (end == Long.MAX_VALUE || !swept(end)) {
                afterSweep();
                return out;
            }
            if (end == dataEnd) {
                fire(end, nowMs, out);
            }
            List<Envelope> markers = markersByEnd.remove(end);
            if (markers != null) {
                out.addAll(markers);
            }
        }
    }

    @Override
    public final long watermark() {
        return watermark;
    }
}
