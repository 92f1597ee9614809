package io.klink.metrics;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Chained right after a source: forwards its records, emits a blocking latency marker every
 * {@code intervalMs} of wall time ({@code 0} = no markers, to measure their overhead), and puts a watermark probe (the watermark's value and the wall time
 * it left the source task) in front of every new watermark, so the output operator can measure how long
 * watermarks take from source to sink. It also reports each new watermark to the klink scheduler as the
 * source task's watermark: how far ingestion has got in event time (Klink's delay samples, §3.1).
 */
public class MarkerInjector extends AbstractStreamOperator<Envelope> implements OneInputStreamOperator<Envelope, Envelope> {

    private final long intervalMs;
    private long lastWatermark = Long.MIN_VALUE;

    public MarkerInjector(long intervalMs) {
        if (intervalMs < 0) {
            throw new IllegalArgumentException("marker interval must not be negative, got " + intervalMs);
        }
        this.intervalMs = intervalMs;
    }

    @Override
    public void open() throws Exception {
        super.open();
        if (intervalMs == 0) {
            return;
        }
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService().registerTimer(now + intervalMs, this::emitMarker);
    }

    private void emitMarker(long timerTime) {
        long now = System.currentTimeMillis();
        output.collect(new StreamRecord<>(Envelope.marker(now), now));
        getProcessingTimeService().registerTimer(timerTime + intervalMs, this::emitMarker);
    }

    @Override
    public void processElement(StreamRecord<Envelope> element) {
        output.collect(element);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (mark.getTimestamp() > lastWatermark) {
            lastWatermark = mark.getTimestamp();
            SchedulerProgress.report(lastWatermark, Long.MAX_VALUE);
            output.collect(new StreamRecord<>(Envelope.probe(mark.getTimestamp(), System.currentTimeMillis())));
        }
        super.processWatermark(mark);
    }
}
