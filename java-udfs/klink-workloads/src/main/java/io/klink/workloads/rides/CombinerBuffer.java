package io.klink.workloads.rides;

import io.klink.metrics.Envelope;
import io.klink.metrics.TumblingWindows;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one combiner instance holds between two emissions, free of Flink (seed adcom-edbt21.txt §3: AdCom
 * pre-aggregates in a hash table in one pass): a partial per (region, window), the instrumentation envelopes
 * (markers, probes) that arrived behind them, and the latest watermark.
 *
 * <p>The watermark is held with the data: emitting it before the partials it covers would let the global window
 * fire without them. {@link #drain} returns the partials first (each stamped with its window's last ms, so the
 * window assigns it as it would its trips), then the held envelopes in arrival order; the caller emits
 * {@link #takeWatermark} after them.
 */
public final class CombinerBuffer {

    private record Slot(String region, long windowEnd) {}

    private final RideAggregate aggregate;
    private final long windowMs;
    private final long offsetMs;
    private final Map<Slot, RideAggregate.Partial> partials = new LinkedHashMap<>();
    private final List<Envelope> held = new ArrayList<>();
    private long records;
    private long watermark = Long.MIN_VALUE;
    private boolean watermarkPending;

    public CombinerBuffer(RideAggregate aggregate, long windowMs, long offsetMs) {
        this.aggregate = aggregate;
        this.windowMs = windowMs;
        this.offsetMs = offsetMs;
    }

    /** A trip or partial (DATA) joins its region's partial of its window. */
    public void add(Envelope data) {
        long end = TumblingWindows.windowEnd(data.timestamp, windowMs, offsetMs);
        partials.computeIfAbsent(new Slot(data.key, end), s -> aggregate.newPartial()).add(data);
        records++;
    }

    /** A marker or probe: emitted after the partials of the data before it. */
    public void hold(Envelope instrumentation) {
        held.add(instrumentation);
    }

    public void holdWatermark(long newWatermark) {
        if (newWatermark > watermark) {
            watermark = newWatermark;
            watermarkPending = true;
        }
    }

    /** Trips taken in since the last drain. */
    public long records() {
        return records;
    }

    public boolean isEmpty() {
        return partials.isEmpty() && held.isEmpty() && !watermarkPending;
    }

    /** The partials (window order of arrival), then the held envelopes; empties the buffer but the watermark. */
    public List<Envelope> drain() {
        List<Envelope> out = new ArrayList<>(partials.size() + held.size());
        partials.forEach((slot, partial) -> out.add(partial.toEnvelope(slot.region(), slot.windowEnd() - 1)));
        out.addAll(held);
        partials.clear();
        held.clear();
        records = 0;
        return out;
    }

    /** The watermark to emit after {@link #drain}'s output, or null if it did not advance since the last one. */
    public Long takeWatermark() {
        if (!watermarkPending) {
            return null;
        }
        watermarkPending = false;
        return watermark;
    }
}
