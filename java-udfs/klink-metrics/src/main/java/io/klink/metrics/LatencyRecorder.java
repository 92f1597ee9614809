package io.klink.metrics;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/** The output operator of an instrumented pipeline: emits {@link MetricRows} as JSON strings (to a Kafka sink). */
public class LatencyRecorder extends AbstractStreamOperator<String> implements OneInputStreamOperator<Envelope, String> {

    private final String query;
    private final boolean recordResults;
    private transient MetricRows rows;

    /** {@code recordResults}: also a row per key of every window result (for accuracy against exact results). */
    public LatencyRecorder(String query, boolean recordResults) {
        this.query = query;
        this.recordResults = recordResults;
    }

    @Override
    public void open() throws Exception {
        super.open();
        rows = new MetricRows(query, recordResults);
    }

    @Override
    public void processElement(StreamRecord<Envelope> element) {
        String row = rows.onElement(element.getValue(), System.currentTimeMillis());
        if (row != null) {
            output.collect(new StreamRecord<>(row));
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        String row = rows.onWatermark(mark.getTimestamp(), System.currentTimeMillis());
        if (row != null) {
            output.collect(new StreamRecord<>(row));
        }
        super.processWatermark(mark);
    }
}
