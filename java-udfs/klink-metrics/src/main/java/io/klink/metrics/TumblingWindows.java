package io.klink.metrics;

import java.util.List;
import java.util.TreeMap;

/**
 * Event-time tumbling windows with blocking latency markers, each window's contents a {@code W}: the
 * template of every tumbling workload window, which supplies only how a window starts ({@link #newWindow}),
 * takes an event ({@link #addTo}) and turns into RESULTs when it fires ({@link #emitResults(Object, long, List)}).
 *
 * <p>Windows as Flink's: {@code [start, end)} with {@code start = t - ((t - offset) mod size)}; a window
 * fires on the first watermark {@code w >= end - 1}; an event whose window already fired is late and
 * dropped (counted). A marker is held by the window its creation time falls in.
 */
public abstract class TumblingWindows<W> extends MarkerHoldingWindows {

    private final long sizeMs;
    private final long offsetMs;
    private final TreeMap<Long, W> windowsByEnd = new TreeMap<>();

    protected TumblingWindows(long sizeMs, long offsetMs) {
        super(sizeMs);
        if (sizeMs <= 0) {
            throw new IllegalArgumentException("window size must be positive, got " + sizeMs);
        }
        this.sizeMs = sizeMs;
        this.offsetMs = Math.floorMod(offsetMs, sizeMs);
    }

    /** End of the tumbling window {@code [start, start + size)} holding {@code timestamp} (Flink's alignment). */
    public static long windowEnd(long timestamp, long sizeMs, long offsetMs) {
        return timestamp - Math.floorMod(timestamp - offsetMs, sizeMs) + sizeMs;
    }

    public final long windowEnd(long timestamp) {
        return windowEnd(timestamp, sizeMs, offsetMs);
    }

    protected final long windowStart(long end) {
        return end - sizeMs;
    }

    /** The contents of a window that just received its first event. */
    protected abstract W newWindow();

    /** Adds a DATA event to the contents of its (open) window. */
    protected abstract void addTo(W window, Envelope event);

    /** Emits the RESULTs of a window that fires, ending at {@code end}; its contents are forgotten afterwards. */
    protected abstract Fired emitResults(W window, long end, List<Envelope> out);

    @Override
    public final boolean add(Envelope event) {
        long end = windowEnd(event.timestamp);
        if (swept(end)) {
            return late();
        }
        addTo(windowsByEnd.computeIfAbsent(end, e -> newWindow()), event);
        return true;
    }

    @Override
    protected final long markerWindowEnd(long timestamp) {
        return windowEnd(timestamp);
    }

    @Override
    protected final Fired emitResults(long end, List<Envelope> out) {
        return emitResults(windowsByEnd.remove(end), end, out);
    }

    /** Event time (ms) at which the earliest open window ends (its deadline), Long.MAX_VALUE if none is open. */
    @Override
    public final long nextDeadline() {
        return windowsByEnd.isEmpty() ? Long.MAX_VALUE : windowsByEnd.firstKey();
    }

    public final int openWindows() {
        return windowsByEnd.size();
    }
}
