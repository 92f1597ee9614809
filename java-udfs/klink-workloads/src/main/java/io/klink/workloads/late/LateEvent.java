package io.klink.workloads.late;

/** One event of a window's state: its key, its value, its event time (ms) and its payload (null: none). */
public record LateEvent(String key, double value, long timestamp, String payload) {

    public LateEvent(String key, double value, long timestamp) {
        this(key, value, timestamp, null);
    }
}
