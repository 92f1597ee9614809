package io.klink.workloads.late;

import io.klink.metrics.Envelope;
import io.klink.metrics.TumblingWindows;
import io.klink.scheduler.LiveHeap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * After a late-event window (AION's or Flink's, whose operator cannot carry the instrumentation): the window's
 * RESULTs pass; on each watermark every window it swept gets its FIRING summary (keys and events of its on-time
 * results; SWM latency, DESIGN.md §4), then the blocking markers created in it, which waited here. DATA arriving
 * here are the events the window dropped after cleanup: each one raises its window's RESULT of key
 * {@code #dropped} (value: dropped so far) and counts in the next FIRING's late drops. One instance per query.
 */
public class ResultFirings extends AbstractStreamOperator<Envelope>
        implements OneInputStreamOperator<Envelope, Envelope> {

    public static final String DROPPED_KEY = "#dropped";
    /** The gauge of the TaskManager's live heap (after its latest GC) that klinkctl's late-state.csv reads over
     *  REST: here because every late-state pipeline, Flink's windows and AION's, has this operator. */
    public static final String LIVE_HEAP_BYTES = "liveHeapBytes";

    private final long sizeMs;
    private final long offsetMs;
    private transient long watermark;
    private transient Map<Long, long[]> onTime;
    private transient TreeMap<Long, List<Envelope>> markers;
    private transient Map<Long, Long> dropped;
    private transient long droppedSinceFiring;

    public ResultFirings(long sizeMs, long offsetMs) {
        this.sizeMs = sizeMs;
        this.offsetMs = offsetMs;
    }

    @Override
    public void open() throws Exception {
        super.open();
        watermark = Long.MIN_VALUE;
        onTime = new HashMap<>();
        markers = new TreeMap<>();
        dropped = new HashMap<>();
        getMetricGroup().gauge(LIVE_HEAP_BYTES, (Gauge<Long>) LiveHeap::bytes);
    }

    private long end(long timestamp) {
        return TumblingWindows.windowEnd(timestamp, sizeMs, Math.floorMod(offsetMs, sizeMs));
    }

    @Override
    public void processElement(StreamRecord<Envelope> element) {
        Envelope e = element.getValue();
        switch (e.kind) {
            case Envelope.DATA -> {
                long end = end(e.timestamp);
                long total = dropped.merge(end, 1L, Long::sum);
                droppedSinceFiring++;
                output.collect(new StreamRecord<>(Envelope.result(DROPPED_KEY, end, total), end - 1));
            }
            case Envelope.RESULT -> {
                if (e.key != null && !e.key.startsWith("#") && e.timestamp - 1 > watermark) {
                    long[] window = onTime.computeIfAbsent(e.timestamp, k -> new long[2]);
                    window[0]++;
                    window[1] += e.value;
                }
                output.collect(element);
            }
            case Envelope.MARKER -> {
                if (watermark != Long.MIN_VALUE && end(e.timestamp) - 1 <= watermark) {
                    output.collect(element);
                } else {
                    markers.computeIfAbsent(end(e.timestamp), k -> new ArrayList<>()).add(e);
                }
            }
            case Envelope.PROGRESS -> { }
            default -> output.collect(element);
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        long next = mark.getTimestamp();
        if (watermark != Long.MIN_VALUE && next > watermark && next != Long.MAX_VALUE) {
            long now = System.currentTimeMillis();
            for (long end = end(watermark + 1); end - 1 <= next; end += sizeMs) {
                long[] window = onTime.remove(end);
                output.collect(new StreamRecord<>(Envelope.firing(end - sizeMs, end, next, now,
                        window == null ? 0 : window[0], window == null ? 0 : window[1], droppedSinceFiring), end - 1));
                droppedSinceFiring = 0;
            }
        }
        watermark = Math.max(watermark, next);
        Map<Long, List<Envelope>> released = markers.headMap(watermark + 2);  // windows with end - 1 <= watermark
        released.values().forEach(held -> held.forEach(m -> output.collect(new StreamRecord<>(m))));
        released.clear();
        super.processWatermark(mark);
    }
}
