package io.klink.workloads.rides;

import io.klink.metrics.Envelope;
import io.klink.metrics.TumblingWindows;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The global aggregation after the shuffle: event-time tumbling windows merging each region's partials (trips or
 * a combiner's partial aggregates) into its {@link RideAggregate}; one RESULT per region when the window fires.
 * The firing summary counts trips, not partials, so its event count is the input's whatever the combiner did.
 */
public final class RideWindows extends TumblingWindows<Map<String, RideAggregate.Partial>> {

    private final RideAggregate aggregate;

    public RideWindows(long sizeMs, long offsetMs, RideAggregate aggregate) {
        super(sizeMs, offsetMs);
        this.aggregate = aggregate;
    }

    @Override
    protected Map<String, RideAggregate.Partial> newWindow() {
        return new HashMap<>();
    }

    @Override
    protected void addTo(Map<String, RideAggregate.Partial> window, Envelope event) {
        window.computeIfAbsent(event.key, k -> aggregate.newPartial()).add(event);
    }

    @Override
    protected Fired emitResults(Map<String, RideAggregate.Partial> window, long end, List<Envelope> out) {
        long trips = 0;
        for (Map.Entry<String, RideAggregate.Partial> entry : window.entrySet()) {
            out.add(entry.getValue().toResult(entry.getKey(), end));
            trips += entry.getValue().trips();
        }
        return new Fired(window.size(), trips);
    }
}
