package io.klink.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The template every {@link EventWindows} follows: the watermark, the sweeping rule (a window fires on the
 * first watermark {@code w >= end - 1}, DESIGN.md §4), the late-event count of the next FIRING, the FIRING
 * summary itself, and the blocking markers each window holds until its output is out. Subclasses keep the
 * window contents and emit a fired window's RESULTs ({@link #emitResults}); {@link TumblingWindows} also
 * keeps the contents of tumbling windows, so a tumbling workload window only aggregates and builds results.
 */
public abstract class MarkerHoldingWindows implements EventWindows {

    /** What a fired window emitted, for its FIRING summary: its keys (RESULTs) and the events it counted. */
    public record Fired(int keys, long events) {}

    private final long sizeMs;
    private final TreeMap<Long, List<Envelope>> markersByEnd = new TreeMap<>();
    private long watermark = Long.MIN_VALUE;
    private long lateSinceLastFiring;

    /** {@code sizeMs}: the window length; a window ending at {@code end} starts at {@code end - sizeMs}. */
    protected MarkerHoldingWindows(long sizeMs) {
        this.sizeMs = sizeMs;
    }

    /** End of the window a marker created at {@code timestamp} waits for. */
    protected abstract long markerWindowEnd(long timestamp);

    /** Emits the RESULTs of the data window ending at {@code end} (its FIRING follows them). */
    protected abstract Fired emitResults(long end, List<Envelope> out);

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

    /** The RESULTs and then the FIRING summary (with the late events counted since the previous one). */
    private void fire(long end, long nowMs, List<Envelope> out) {
        Fired fired = emitResults(end, out);
        out.add(Envelope.firing(end - sizeMs, end, watermark, nowMs, fired.keys(), fired.events(),
                lateSinceLastFiring));
        lateSinceLastFiring = 0;
    }

    @Override
    public final long watermark() {
        return watermark;
    }
}
