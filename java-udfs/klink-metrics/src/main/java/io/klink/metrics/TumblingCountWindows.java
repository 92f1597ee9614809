package io.klink.metrics;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Event-time tumbling windows counting events per key (weighted: a sampled event counts for its weight), with
 * blocking latency markers — the logic of {@link InstrumentedWindowOperator} for YSB, free of Flink so it can
 * be tested on scripted sequences. Window alignment, firing and late events as {@link TumblingWindows}.
 * A marker is held by the window its creation time falls in and released right after that window's
 * output, so its latency includes the wait for the window (Klink §6.1.2 "blocking" markers).
 */
public final class TumblingCountWindows extends TumblingWindows<Map<String, double[]>> {

    public TumblingCountWindows(long sizeMs, long offsetMs) {
        super(sizeMs, offsetMs);
    }

    public boolean add(String key, long eventTime) {
        return add(key, eventTime, 1.0);
    }

    /** Counts one event as {@code weight} events; false (and counted as dropped) if its window already fired. */
    public boolean add(String key, long eventTime, double weight) {
        Envelope event = Envelope.data(key, eventTime, 0);
        event.weight = weight;
        return add(event);
    }

    @Override
    protected Map<String, double[]> newWindow() {
        return new HashMap<>();
    }

    /** Per key: {weighted count, events}. */
    @Override
    protected void addTo(Map<String, double[]> counts, Envelope event) {
        double[] countAndEvents = counts.computeIfAbsent(event.key, k -> new double[2]);
        countAndEvents[0] += event.weight;
        countAndEvents[1]++;
    }

    @Override
    protected Fired emitResults(Map<String, double[]> counts, long end, List<Envelope> out) {
        long events = 0;
        for (Map.Entry<String, double[]> entry : counts.entrySet()) {
            Envelope result = Envelope.result(entry.getKey(), end, Math.round(entry.getValue()[0]));
            result.weight = entry.getValue()[0];
            out.add(result);
            events += (long) entry.getValue()[1];
        }
        return new Fired(counts.size(), events);
    }
}
