package io.klink.workloads.tail;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The end of a per-record-latency pipeline (behind a key-by-id exchange, so every copy of a record reaches the
 * same task): keeps the first copy of each id, records its end-to-end latency (creation to here, µs) in an
 * HdrHistogram, and once a second emits the second's histogram as a metric row:
 * {@code {"type":"records","query","subtask","start_ms","end_ms","count","duplicates","queued_us","histogram"}}
 * ({@code queued_us}: the first copies' queueing delays, summed; see TailRecord) with the
 * histogram in HdrHistogram's compressed encoding, base64 (klinkctl merges them across tasks and seconds).
 * With a {@link Replayer} upstream it also acknowledges each first copy, with its latency, on the feedback channel.
 */
public final class RecordLatencySink extends AbstractStreamOperator<String> implements OneInputStreamOperator<TailRecord, String> {

    /** Latencies up to an hour, 3 significant digits (HdrHistogram's usual precision). */
    public static final long HIGHEST_MICROS = 3_600_000_000L;
    public static final int DIGITS = 3;
    static final long PERIOD_MS = 1000;
    /** How often acknowledgements are sent: a batch per flush keeps the channel's records few. */
    static final long ACK_FLUSH_MS = 2;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String query;
    private final long dedupHorizonMs;
    private final String ackBootstrap;
    private final String ackTopic;
    private transient Feedback feedback;
    private transient StringBuilder acks;
    private transient Histogram histogram;
    private transient long periodStartMs;
    private transient long duplicates;
    private transient long queuedMicros;
    private transient SeenIds seen;
    private transient int subtask;

    /** {@code dedupHorizonMs}: how long after its creation a record's id is remembered to drop later copies. */
    public RecordLatencySink(String query, long dedupHorizonMs) {
        this(query, dedupHorizonMs, null, null);
    }

    /** As above, acknowledging first copies on the feedback channel {@code ackTopic} (for a {@link Replayer}). */
    public RecordLatencySink(String query, long dedupHorizonMs, String ackBootstrap, String ackTopic) {
        this.query = query;
        this.dedupHorizonMs = dedupHorizonMs;
        this.ackBootstrap = ackBootstrap;
        this.ackTopic = ackTopic;
    }

    @Override
    public void open() throws Exception {
        super.open();
        histogram = new Histogram(HIGHEST_MICROS, DIGITS);
        seen = new SeenIds(dedupHorizonMs);
        subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        long now = getProcessingTimeService().getCurrentProcessingTime();
        periodStartMs = now - now % PERIOD_MS;
        getProcessingTimeService().registerTimer(periodStartMs + PERIOD_MS, this::onPeriodEnd);
        if (ackTopic != null) {
            feedback = Feedback.join(ackBootstrap, ackTopic);
            acks = new StringBuilder();
            getProcessingTimeService().registerTimer(now + ACK_FLUSH_MS, this::flushAcks);
        }
    }

    private void flushAcks(long timestamp) {
        if (acks.length() > 0) {
            feedback.publish(Replayer.ackKey(query), acks.toString());
            acks.setLength(0);
        }
        getProcessingTimeService().registerTimer(timestamp + ACK_FLUSH_MS, this::flushAcks);
    }

    @Override
    public void processElement(StreamRecord<TailRecord> element) {
        TailRecord r = element.getValue();
        if (!seen.firstCopy(r.id, r.createdMs)) {
            duplicates++;
            return;
        }
        long latency = Math.min(HIGHEST_MICROS, Math.max(0, Feedback.nowMicros() - r.createdMs * 1000));
        histogram.recordValue(latency);
        queuedMicros += r.queuedUs;
        if (acks != null) {
            acks.append(acks.length() > 0 ? "," : "").append(r.id).append(':').append(latency);
        }
    }

    private void onPeriodEnd(long timestamp) {
        emitRow(periodStartMs + PERIOD_MS);
        periodStartMs += PERIOD_MS;
        getProcessingTimeService().registerTimer(periodStartMs + PERIOD_MS, this::onPeriodEnd);
    }

    @Override
    public void finish() throws Exception {
        emitRow(getProcessingTimeService().getCurrentProcessingTime());
        super.finish();
    }

    private void emitRow(long endMs) {
        if (histogram.getTotalCount() == 0 && duplicates == 0) {
            return;
        }
        output.collect(new StreamRecord<>(row(query, subtask, periodStartMs, endMs, histogram, duplicates, queuedMicros)));
        histogram.reset();
        duplicates = 0;
        queuedMicros = 0;
    }

    @Override
    public void close() throws Exception {
        feedback = Feedback.release(feedback);
        super.close();
    }

    static String row(String query, int subtask, long startMs, long endMs, Histogram histogram, long duplicates,
                      long queuedMicros) {
        ObjectNode row = JSON.createObjectNode();
        row.put("type", "records").put("query", query).put("subtask", subtask).put("start_ms", startMs)
                .put("end_ms", endMs).put("count", histogram.getTotalCount()).put("duplicates", duplicates)
                .put("queued_us", queuedMicros)
                .put("histogram", encode(histogram));
        return row.toString();
    }

    static String encode(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
    }

    /** Ids seen, bucketed by creation second and forgotten past the horizon, so the state stays bounded. */
    static final class SeenIds {
        private final long horizonMs;
        private final TreeMap<Long, Set<Long>> bySecond = new TreeMap<>();
        private long newestMs = Long.MIN_VALUE;

        SeenIds(long horizonMs) {
            this.horizonMs = horizonMs;
        }

        /** True for an id's first copy (and for copies older than the horizon, which nothing remembers). */
        boolean firstCopy(long id, long createdMs) {
            newestMs = Math.max(newestMs, createdMs);
            for (Iterator<Map.Entry<Long, Set<Long>>> it = bySecond.entrySet().iterator(); it.hasNext(); ) {
                if (it.next().getKey() * 1000 >= newestMs - horizonMs) {
                    break;
                }
                it.remove();
            }
            return bySecond.computeIfAbsent(createdMs / 1000, s -> new HashSet<>()).add(id);
        }

        int remembered() {
            return bySecond.values().stream().mapToInt(Set::size).sum();
        }
    }
}
