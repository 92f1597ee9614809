package io.klink.sampler;

import io.klink.metrics.Envelope;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Runs a {@link StreamSampler} in front of a query's window, chained into the source task: data events go
 * through the sampler, markers pass straight on, and the source's watermarks (and their probes) are replaced
 * by the sampler's, each led by a probe so watermark propagation is still measured. A processing-time tick
 * every {@value #TICK_MS} ms lets watermarks come due while no event arrives.
 */
public class SamplingOperator extends AbstractStreamOperator<Envelope>
        implements OneInputStreamOperator<Envelope, Envelope> {

    static final long TICK_MS = 5;

    private final SamplerConfig config;
    private transient StreamSampler sampler;
    private transient StreamSampler.Output toWindow;

    public SamplingOperator(SamplerConfig config) {
        this.config = config;
    }

    @Override
    public void open() throws Exception {
        super.open();
        sampler = Samplers.create(config);
        toWindow = new StreamSampler.Output() {
            @Override
            public void event(Envelope event) {
                output.collect(new StreamRecord<>(event, event.timestamp));
            }

            @Override
            public void watermark(long watermark) {
                output.collect(new StreamRecord<>(Envelope.probe(watermark, System.currentTimeMillis())));
                output.emitWatermark(new Watermark(watermark));
            }

            @Override
            public void substream(SubstreamReport r) {
                output.collect(new StreamRecord<>(Envelope.substream(r.end(), r.closedAt(), r.observed(), r.sampled(),
                        r.rate(), r.target(), r.droppedLate())));
            }
        };
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService().registerTimer(now + TICK_MS, this::tick);
    }

    private void tick(long timerTime) {
        sampler.onTime(System.currentTimeMillis(), toWindow);
        getProcessingTimeService().registerTimer(timerTime + TICK_MS, this::tick);
    }

    @Override
    public void processElement(StreamRecord<Envelope> element) {
        Envelope envelope = element.getValue();
        switch (envelope.kind) {
            case Envelope.DATA -> sampler.onEvent(envelope, System.currentTimeMillis(), toWindow);
            case Envelope.PROBE -> { }  // the source's watermarks do not pass
            case Envelope.PROGRESS -> sampler.onProgress(envelope.timestamp, System.currentTimeMillis(), toWindow);
            default -> output.collect(element);
        }
    }

    @Override
    public void processWatermark(Watermark mark) {
        // Replaced by the sampler's watermarks (thesis §4.1: Aion controls stream progress itself).
    }
}
