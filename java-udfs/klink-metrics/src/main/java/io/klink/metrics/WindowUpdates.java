package io.klink.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The window view of a changelog of per-key window results (a Table API aggregate grouped by key and window,
 * which updates a key's result at every mini-batch instead of firing the window once), as it reaches the output
 * operator, beside the query's event-time watermarks as they reach it too. Each {@link #onUpdate} is one key's
 * new result (an insert or an update after, RESULT envelope: timestamp = window end, fields[0] = the events it
 * counts) at wall time {@code now}; each {@link #onWatermark} an event-time watermark. {@link #flush} gives one
 * {@code update} row per window updated or swept since the last flush:
 * <pre>
 *   {"type":"update","query":..,"window_end":..,"updated_at":..,"keys":..,"events":..,"updates":..,
 *    "swm":..,"swm_at":..}
 * </pre>
 * {@code updated_at}: the wall time of the window's last update so far; {@code keys}, {@code events}: the keys
 * it has results for and the events their latest results count; {@code updates}: updates since the last row;
 * {@code swm}, {@code swm_at}: its sweeping watermark (the first watermark {@code >= end - 1}, as
 * {@link TumblingWindows} fire) and the wall time it arrived here, -1 before it did. The harness takes each
 * window's last row (klinkctl/results/changelog.py, docs/combiner.md).
 */
public final class WindowUpdates {

    /** Windows kept per query (the oldest forgotten beyond it): a run's windows of the last minutes. */
    static final int MAX_WINDOWS = 4096;

    private final String query;
    private final TreeMap<Long, Window> windowsByEnd = new TreeMap<>();
    /** Wall time each watermark value (the first that reached it) arrived, for windows first updated later. */
    private final TreeMap<Long, Long> watermarkArrivals = new TreeMap<>();
    private long watermark = Long.MIN_VALUE;

    private static final class Window {
        final Map<String, Long> eventsByKey = new HashMap<>();
        long events;
        long updatedAt = -1;
        long updatesSinceRow;
        long swm = -1;
        long swmAt = -1;
        boolean changed;
    }

    public WindowUpdates(String query) {
        this.query = query;
    }

    /** Records one key's new result of its window, reached here at {@code now}. */
    public void onUpdate(Envelope result, long now) {
        Window window = windowsByEnd.computeIfAbsent(result.timestamp, this::newWindow);
        long events = (long) result.fields[0];
        Long previous = window.eventsByKey.put(result.key, events);
        window.events += events - (previous == null ? 0 : previous);
        window.updatedAt = Math.max(window.updatedAt, now);
        window.updatesSinceRow++;
        window.changed = true;
        while (windowsByEnd.size() > MAX_WINDOWS) {
            windowsByEnd.pollFirstEntry();
        }
    }

    /** A window first updated now: swept already if an earlier watermark passed its end. */
    private Window newWindow(long end) {
        Window window = new Window();
        Map.Entry<Long, Long> sweeping = watermarkArrivals.ceilingEntry(end - 1);
        if (sweeping != null) {
            window.swm = sweeping.getKey();
            window.swmAt = sweeping.getValue();
        }
        return window;
    }

    /** An event-time watermark of the query reached here at {@code now}: it sweeps every window it passes. */
    public void onWatermark(long mark, long now) {
        if (mark <= watermark) {
            return;
        }
        watermark = mark;
        watermarkArrivals.put(mark, now);
        while (watermarkArrivals.size() > MAX_WINDOWS) {
            watermarkArrivals.pollFirstEntry();
        }
        for (Window window : windowsByEnd.headMap(Math.min(mark, Long.MAX_VALUE - 1) + 1, true).values()) {
            if (window.swmAt < 0) {
                window.swm = mark;
                window.swmAt = now;
                window.changed = true;
            }
        }
    }

    /** One {@code update} row per window updated or swept since the last flush, in window order. */
    public List<String> flush() {
        List<String> rows = new ArrayList<>();
        windowsByEnd.forEach((end, w) -> {
            if (w.changed) {
                rows.add("{\"type\":\"update\",\"query\":\"" + query + "\",\"window_end\":" + end
                        + ",\"updated_at\":" + w.updatedAt + ",\"keys\":" + w.eventsByKey.size()
                        + ",\"events\":" + w.events + ",\"updates\":" + w.updatesSinceRow
                        + ",\"swm\":" + w.swm + ",\"swm_at\":" + w.swmAt + "}");
                w.updatesSinceRow = 0;
                w.changed = false;
            }
        });
        return rows;
    }
}
