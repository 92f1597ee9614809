package io.klink.metrics;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The output operator of a query whose result is a changelog of per-key window results (RESULT envelopes, each
 * a key's insert or update) rather than fired windows: emits {@link WindowUpdates}' {@code update} rows on every
 * watermark that reaches it (behind a mini-batch aggregate: its mini-batch markers, after each batch's updates),
 * every {@link #FLUSH_MS} of processing time whatever comes, and at the end of input; with {@code
 * recordResults}, a {@code result} row per update (MetricRows, with the wall time it reached this operator).
 */
public class ChangelogRecorder extends AbstractStreamOperator<String> implements OneInputStreamOperator<Envelope, String> {

    /** How often pending rows go out without a watermark. */
    static final long FLUSH_MS = 200;

    private final String query;
    private final boolean recordResults;
    private transient WindowUpdates updates;
    private transient MetricRows rows;

    public ChangelogRecorder(String query, boolean recordResults) {
        this.query = query;
        this.recordResults = recordResults;
    }

    @Override
    public void open() throws Exception {
        super.open();
        updates = new WindowUpdates(query);
        rows = new MetricRows(query, recordResults);
        scheduleFlush();
    }

    private void scheduleFlush() {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService().registerTimer(now + FLUSH_MS, time -> {
            flush();
            scheduleFlush();
        });
    }

    @Override
    public void processElement(StreamRecord<Envelope> element) {
        long now = System.currentTimeMillis();
        Envelope result = element.getValue();
        updates.onUpdate(result, now);
        String row = rows.onElement(result, now);
        if (row != null) {
            output.collect(new StreamRecord<>(row));
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flush();
        super.processWatermark(mark);
    }

    @Override
    public void finish() throws Exception {
        flush();
        super.finish();
    }

    private void flush() {
        for (String row : updates.flush()) {
            output.collect(new StreamRecord<>(row));
        }
    }
}
