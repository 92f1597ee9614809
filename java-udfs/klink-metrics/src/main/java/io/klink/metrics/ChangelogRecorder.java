package io.klink.metrics;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The output operator of a query whose result is a changelog of per-key window results rather than fired windows.
 * Input 1: the changelog (RESULT envelopes, each a key's insert or update); its watermarks are whatever the
 * aggregate forwards (behind a processing-time mini-batch aggregate: its mini-batch markers, after each batch's
 * updates) and only flush rows. Input 2: no records, the query's event-time watermarks from before the aggregate
 * (which drops them), so that each window's sweeping watermark reaches this operator as it would a window's.
 * Emits {@link WindowUpdates}' {@code update} rows on every watermark of either input, every {@link #FLUSH_MS} of
 * processing time whatever comes, and at the end of input; with {@code recordResults}, a {@code result} row per
 * update (MetricRows, with the wall time it reached this operator). Forwards no watermark: a sink follows.
 */
public class ChangelogRecorder extends AbstractStreamOperator<String>
        implements TwoInputStreamOperator<Envelope, Envelope, String> {

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
    public void processElement1(StreamRecord<Envelope> element) {
        long now = System.currentTimeMillis();
        Envelope result = element.getValue();
        updates.onUpdate(result, now);
        String row = rows.onElement(result, now);
        if (row != null) {
            output.collect(new StreamRecord<>(row));
        }
    }

    @Override
    public void processElement2(StreamRecord<Envelope> element) {
        // the event-time side carries watermarks only
    }

    @Override
    public void processWatermark1(Watermark mark) {
        flush();
    }

    @Override
    public void processWatermark2(Watermark mark) {
        updates.onWatermark(mark.getTimestamp(), System.currentTimeMillis());
        flush();
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
