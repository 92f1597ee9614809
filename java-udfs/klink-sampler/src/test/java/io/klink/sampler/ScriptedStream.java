package io.klink.sampler;

import io.klink.metrics.Envelope;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * Drives a sampler like the operator does, on a scripted stream: event i is generated at {@code i·gapMs},
 * keyed {@code "k" + i % keys}, and arrives {@code delay(i)} ms later; time advances 1 ms at a time.
 */
final class ScriptedStream implements StreamSampler.Output {

    record Emitted(Envelope event, long at) {}

    record Mark(long watermark, long at) {}

    final List<Emitted> events = new ArrayList<>();
    final List<Mark> watermarks = new ArrayList<>();
    final List<SubstreamReport> substreams = new ArrayList<>();
    private long now;

    void run(StreamSampler sampler, int count, long gapMs, int keys, LongUnaryOperator delay, long untilMs) {
        List<long[]> arrivals = new ArrayList<>();  // {arrival, event time, index}
        for (int i = 0; i < count; i++) {
            arrivals.add(new long[] {i * gapMs + delay.applyAsLong(i), i * gapMs, i});
        }
        arrivals.sort(Comparator.comparingLong((long[] a) -> a[0]).thenComparingLong(a -> a[2]));
        int next = 0;
        for (now = 0; now <= untilMs; now++) {
            while (next < arrivals.size() && arrivals.get(next)[0] == now) {
                long[] a = arrivals.get(next++);
                sampler.onEvent(Envelope.data("k" + a[2] % keys, a[1], 0), now, this);
            }
            sampler.onTime(now, this);
        }
    }

    @Override
    public void event(Envelope event) {
        events.add(new Emitted(event, now));
    }

    @Override
    public void watermark(long watermark) {
        watermarks.add(new Mark(watermark, now));
    }

    @Override
    public void substream(SubstreamReport report) {
        substreams.add(report);
    }

    double weightOfSubstream(long end, long substreamMs) {
        return events.stream().filter(e -> e.event().timestamp >= end - substreamMs && e.event().timestamp < end)
                .mapToDouble(e -> e.event().weight).sum();
    }
}
