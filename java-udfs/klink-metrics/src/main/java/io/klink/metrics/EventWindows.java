package io.klink.metrics;

import java.io.Serializable;
import java.util.List;

/**
 * Event-time windows with blocking latency markers, free of Flink: what {@link InstrumentedWindowOperator}
 * runs. A window fires on its sweeping watermark (the first {@code w >= end - 1}) and emits its RESULTs, one
 * FIRING summary, then the markers it held (DESIGN.md §4).
 */
public interface EventWindows {

    /** Adds one DATA event; false (counted as late) if every window it belongs to already fired. */
    boolean add(Envelope event);

    /** Holds a marker until its window fires; false if that window already fired (forward it now). */
    boolean holdMarker(Envelope marker);

    /** Advances the watermark; returns the swept windows' outputs in deadline order. */
    List<Envelope> advance(long newWatermark, long nowMs);

    long watermark();

    /** Event time (ms) at which the earliest open window ends, Long.MAX_VALUE if none is open. */
    long nextDeadline();

    /** Creates the windows in the operator's open() (the operator itself is serialized, not the windows). */
    interface Factory extends Serializable {
        EventWindows create();
    }
}
