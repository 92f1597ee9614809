package io.klink.metrics;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Event-time sliding windows (size, slide, offset) aggregating per key the event count and the averages
 * of the first {@code width} entries of {@link Envelope#fields}, with blocking latency markers. Weighted: an
 * event counts {@link Envelope#weight} times (a sampler's scale-up, Aion Eq. 4.5), so a key's count is the sum
 * of its events' weights and its averages are weighted means; a RESULT's value is the count rounded, its
 * {@code weight} the count unrounded, and the FIRING's events are the events that reached the window.
 *
 * <p>Semantics follow Flink's sliding event-time windows: windows {@code [start, start + size)} with
 * {@code start = offset + k * slide}; a window fires on the first watermark {@code w >= end - 1}; empty
 * windows do not fire; an event whose every window has fired is late and dropped (counted). State is kept
 * per pane of {@code gcd(size, slide)} (one slide when the slide divides the size; 1 s for LRB's 5 s sliding
 * by 3 s), so every window boundary is a pane boundary, and a window merges its panes when it fires.
 * A marker is held by the first window that contains its creation time (the one ending at the next
 * slide boundary) and released right after that window's output.
 */
public final class SlidingAggregateWindows extends MarkerHoldingWindows {

    private final long sizeMs;
    private final long slideMs;
    private final long paneMs;
    private final long offsetMs;
    /** Window ends are {@code endOffsetMs} mod the slide (not {@code offsetMs} when the slide does not divide the size). */
    private final long endOffsetMs;
    private final int width;
    /** pane end -> key -> {weighted count, weighted sum of field 0, ..., of field width-1, events} */
    private final TreeMap<Long, Map<String, double[]>> panes = new TreeMap<>();
    private long lastFiredEnd = Long.MIN_VALUE;

    public SlidingAggregateWindows(long sizeMs, long slideMs, long offsetMs, int width) {
        super(sizeMs);
        if (slideMs <= 0 || sizeMs < slideMs) {
            throw new IllegalArgumentException("window size and slide must be positive, the size at least the slide,"
                    + " got size " + sizeMs + " slide " + slideMs);
        }
        this.sizeMs = sizeMs;
        this.slideMs = slideMs;
        this.paneMs = gcd(sizeMs, slideMs);
        this.offsetMs = Math.floorMod(offsetMs, slideMs);
        this.endOffsetMs = Math.floorMod(offsetMs + sizeMs, slideMs);
        this.width = width;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /** End of the pane that contains {@code timestamp}. */
    public long paneEnd(long timestamp) {
        return timestamp - Math.floorMod(timestamp - offsetMs, paneMs) + paneMs;
    }

    /** End of the first window that contains {@code timestamp}: the first window end after it. */
    public long firstWindowEnd(long timestamp) {
        return timestamp - Math.floorMod(timestamp - endOffsetMs, slideMs) + slideMs;
    }

    /** End of the last window that contains {@code timestamp}: the latest window start up to it, plus the size. */
    private long lastWindowEnd(long timestamp) {
        return timestamp - Math.floorMod(timestamp - offsetMs, slideMs) + sizeMs;
    }

    @Override
    public boolean add(Envelope event) {
        long pane = paneEnd(event.timestamp);
        if (swept(lastWindowEnd(event.timestamp))) {
            return late();
        }
        double[] acc = panes.computeIfAbsent(pane, p -> new HashMap<>())
                .computeIfAbsent(event.key, k -> new double[2 + width]);
        acc[0] += event.weight;
        for (int i = 0; i < width; i++) {
            acc[1 + i] += event.weight * event.fields[i];
        }
        acc[1 + width]++;
        return true;
    }

    @Override
    protected long markerWindowEnd(long timestamp) {
        return firstWindowEnd(timestamp);
    }

    @Override
    protected Fired emitResults(long end, List<Envelope> out) {
        Map<String, double[]> merged = new HashMap<>();
        for (Map<String, double[]> pane : panes.subMap(end - sizeMs, false, end, true).values()) {
            pane.forEach((key, acc) -> {
                double[] into = merged.computeIfAbsent(key, k -> new double[2 + width]);
                for (int i = 0; i < acc.length; i++) {
                    into[i] += acc[i];
                }
            });
        }
        long events = 0;
        for (Map.Entry<String, double[]> entry : merged.entrySet()) {
            double[] acc = entry.getValue();
            Envelope result = Envelope.result(entry.getKey(), end, Math.round(acc[0]));
            result.weight = acc[0];
            result.fields = new double[width];
            for (int i = 0; i < width; i++) {
                result.fields[i] = acc[1 + i] / acc[0];
            }
            out.add(result);
            events += (long) acc[1 + width];
        }
        lastFiredEnd = end;
        panes.headMap(end - sizeMs + slideMs, true).clear();  // in no later window
        return new Fired(merged.size(), events);
    }

    /**
     * Every window up to the watermark has now passed, even one that had no data when it was swept: an
     * event added to it later (not late for its later windows) must not make it fire after all (Flink drops
     * a late element from the windows already swept).
     */
    @Override
    protected void afterSweep() {
        long w = Math.min(watermark(), Long.MAX_VALUE / 4); // the final watermark is Long.MAX_VALUE
        long sweptEnd = w + 1 - Math.floorMod(w + 1 - endOffsetMs, slideMs);
        if (sweptEnd > lastFiredEnd) {
            lastFiredEnd = sweptEnd;
            panes.headMap(sweptEnd - sizeMs + slideMs, true).clear();
        }
    }

    /** The end of the next window that holds data and has not fired yet. */
    @Override
    public long nextDeadline() {
        if (panes.isEmpty()) {
            return Long.MAX_VALUE;
        }
        long first = firstWindowEnd(panes.firstKey() - 1);
        return lastFiredEnd == Long.MIN_VALUE ? first : Math.max(lastFiredEnd + slideMs, first);
    }
}
