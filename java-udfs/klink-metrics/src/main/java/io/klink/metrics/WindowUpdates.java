package io.klink.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The window view of a changelog of per-key window results (a Table API aggregate grouped by key and window,
 * which updates a key's result at every mini-batch instead of firing the window once): what reaches the output
 * operator, per window. Each {@link #onUpdate} is one key's new result (an insert or an update after, RESULT
 * envelope: timestamp = window end, fields[0] = the events it counts) at wall time {@code now}; {@link #flush}
 * gives one {@code update} row per window updated since the last flush:
 * <pre>
 *   {"type":"update","query":..,"window_end":..,"updated_at":..,"keys":..,"events":..,"updates":..}
 * </pre>
 * {@code updated_at}: the wall time of the window's last update so far; {@code keys}, {@code events}: the keys
 * it has results for and the events their latest results count; {@code updates}: updates since the last row.
 * The harness takes each window's last row: its last update, the one that made its result final
 * (klinkctl/results/changelog.py, docs/combiner.md).
 */
public final class WindowUpdates {

    /** Windows kept per query (the oldest forgotten beyond it): a run's windows of the last minutes. */
    static final int MAX_WINDOWS = 4096;

    private final String query;
    private final TreeMap<Long, Window> windowsByEnd = new TreeMap<>();

    private static final class Window {
        final Map<String, Long> eventsByKey = new HashMap<>();
        long events;
        long updatedAt;
        long updatesSinceRow;
    }

    public WindowUpdates(String query) {
        this.query = query;
    }

    /** Records one key's new result of its window, reached here at {@code now}. */
    public void onUpdate(Envelope result, long now) {
        Window window = windowsByEnd.computeIfAbsent(result.timestamp, end -> new Window());
        long events = (long) result.fields[0];
        Long previous = window.eventsByKey.put(result.key, events);
        window.events += events - (previous == null ? 0 : previous);
        window.updatedAt = Math.max(window.updatedAt, now);
        window.updatesSinceRow++;
        while (windowsByEnd.size() > MAX_WINDOWS) {
            windowsByEnd.pollFirstEntry();
        }
    }

    /** One {@code update} row per window updated since the last flush, in window order. */
    public List<String> flush() {
        List<String> rows = new ArrayList<>();
        windowsByEnd.forEach((end, w) -> {
            if (w.updatesSinceRow > 0) {
                rows.add("{\"type\":\"update\",\"query\":\"" + query + "\",\"window_end\":" + end
                        + ",\"updated_at\":" + w.updatedAt + ",\"keys\":" + w.eventsByKey.size()
                        + ",\"events\":" + w.events + ",\"updates\":" + w.updatesSinceRow + "}");
                w.updatesSinceRow = 0;
            }
        });
        return rows;
    }
}
