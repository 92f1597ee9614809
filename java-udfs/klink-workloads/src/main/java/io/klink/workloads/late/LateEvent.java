package io.klink.workloads.late;

/** One event of a window's state: its key, its value and its event time (ms). */
public record LateEvent(String key, double value, long timestamp) {}
