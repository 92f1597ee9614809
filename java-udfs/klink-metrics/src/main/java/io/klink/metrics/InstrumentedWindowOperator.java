package io.klink.metrics;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Event-time window that holds blocking latency markers; the window logic is an {@link EventWindows}
 * (YSB: {@link TumblingCountWindows}; NYT: {@link SlidingAggregateWindows}).
 * Probes pass straight through; on each watermark the swept windows' results, firing summaries and held
 * markers are emitted before the watermark is forwarded.
 *
 * <p>Window contents are not checkpointed: benchmark runs do not restore from checkpoints.
 */
public class InstrumentedWindowOperator extends AbstractStreamOperator<Envelope>
        implements OneInputStreamOperator<Envelope, Envelope> {

    private final EventWindows.Factory factory;
    private transient EventWindows windows;
    private transient long reportedDeadline;

    /** Tumbling count windows (YSB). */
    public InstrumentedWindowOperator(long sizeMs, long offsetMs) {
        this(() -> new TumblingCountWindows(sizeMs, offsetMs));
    }

    public InstrumentedWindowOperator(EventWindows.Factory factory) {
        this.factory = factory;
    }

    @Override
    public void open() throws Exception {
        super.open();
        windows = factory.create();
        reportedDeadline = Long.MAX_VALUE;
        SchedulerProgress.report(windows.watermark(), reportedDeadline);
    }

    /** Tells the scheduler (if attached) this task's watermark and next window deadline when they change. */
    private void reportProgress(boolean watermarkChanged) {
        long deadline = windows.nextDeadline();
        if (watermarkChanged || deadline != reportedDeadline) {
            reportedDeadline = deadline;
            SchedulerProgress.report(windows.watermark(), deadline);
        }
    }

    @Override
    public void processElement(StreamRecord<Envelope> element) {
        Envelope envelope = element.getValue();
        switch (envelope.kind) {
            case Envelope.DATA -> {
                windows.add(envelope);
                reportProgress(false);
            }
            case Envelope.PROGRESS -> { }  // its time already moved the watermark at the source
            case Envelope.MARKER -> {
                if (!windows.holdMarker(envelope)) {
                    output.collect(element);
                }
            }
            default -> output.collect(element);
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        for (Envelope out : windows.advance(mark.getTimestamp(), System.currentTimeMillis())) {
            output.collect(new StreamRecord<>(out, out.timestamp));
        }
        reportProgress(true);
        super.processWatermark(mark);
    }
}
