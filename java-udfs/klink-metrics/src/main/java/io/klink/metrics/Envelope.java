package io.klink.metrics;

import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * The one record type of an instrumented pipeline: data, a blocking latency marker, a watermark probe,
 * a window result, or a window-firing summary travel in the same channels, so markers queue behind data
 * exactly as data does (Flink's built-in LatencyMarker bypasses window buffers, DESIGN.md §4).
 *
 * <p>Serialized by {@link EnvelopeSerializer}, which writes only the fields a kind uses.
 */
@TypeInfo(EnvelopeTypeInfo.Factory.class)
public class Envelope {

    public static final byte DATA = 0;
    public static final byte MARKER = 1;
    public static final byte PROBE = 2;
    public static final byte RESULT = 3;
    public static final byte FIRING = 4;
    public static final byte SUBSTREAM = 5;
    /** Event-time progress without an event (the generator's records after its last event): it advances the
     *  source's watermark like an event of its time, and windows drop it. */
    public static final byte PROGRESS = 6;

    public byte kind;
    /** DATA: key (e.g. ad id, then campaign id); RESULT: the window's key. */
    public String key;
    /** DATA: event time; MARKER: creation wall time; PROBE: watermark value; RESULT/FIRING: window end. */
    public long timestamp;
    /** DATA: payload code (e.g. event type); RESULT: count; FIRING: events counted in the window. */
    public long value;
    /** MARKER: creation wall time; PROBE: wall time the watermark was seen; FIRING: wall time it fired. */
    public long wallTime;
    /** FIRING only. */
    public long windowStart;
    public long sweepingWatermark;
    public long keys;
    public long lateDropped;
    /** DATA: workload fields beyond key/value (e.g. NYT fare, distance); RESULT: per-key aggregates (averages);
     *  SUBSTREAM: what a sampler observed and decided (see {@link #substream}). */
    public double[] fields;
    /** DATA: how many events this one stands for (a sampler's scale-up, Aion Eq. 4.5); 1 without sampling.
     *  RESULT of a weighted aggregate: the unrounded weighted count (value is it rounded). */
    public double weight = 1.0;
    /** DATA: opaque text a workload keeps in its window state (the average workload's --payload-bytes); null
     *  otherwise (one byte on the wire). */
    public String payload;

    public Envelope() {}

    public static Envelope data(String key, long eventTime, long value) {
        Envelope e = new Envelope();
        e.kind = DATA;
        e.key = key;
        e.timestamp = eventTime;
        e.value = value;
        return e;
    }

    public static Envelope progress(long eventTime) {
        Envelope e = new Envelope();
        e.kind = PROGRESS;
        e.timestamp = eventTime;
        return e;
    }

    public static Envelope marker(long createdAt) {
        Envelope e = new Envelope();
        e.kind = MARKER;
        e.timestamp = createdAt;
        e.wallTime = createdAt;
        return e;
    }

    public static Envelope probe(long watermark, long seenAt) {
        Envelope e = new Envelope();
        e.kind = PROBE;
        e.timestamp = watermark;
        e.wallTime = seenAt;
        return e;
    }

    public static Envelope result(String key, long windowEnd, long count) {
        Envelope e = new Envelope();
        e.kind = RESULT;
        e.key = key;
        e.timestamp = windowEnd;
        e.value = count;
        return e;
    }

    /** A window-firing summary: the window {@code [start, end)}, its SWM, when it fired, keys, events, late drops. */
    public static Envelope firing(long start, long end, long sweepingWatermark, long nowMs, long keys, long events,
                                  long lateDropped) {
        Envelope e = new Envelope();
        e.kind = FIRING;
        e.timestamp = end;
        e.windowStart = start;
        e.sweepingWatermark = sweepingWatermark;
        e.wallTime = nowMs;
        e.keys = keys;
        e.value = events;
        e.lateDropped = lateDropped;
        return e;
    }

    /**
     * A sampler closed a sub-stream ending at {@code end} at wall time {@code closedAt}: fields = observed events,
     * sampled events, sampling rate θ, target sample size, stragglers dropped so far.
     */
    public static Envelope substream(long end, long closedAt, double... fields) {
        Envelope e = new Envelope();
        e.kind = SUBSTREAM;
        e.timestamp = end;
        e.wallTime = closedAt;
        e.fields = fields;
        return e;
    }

    public boolean isData() {
        return kind == DATA;
    }

    @Override
    public String toString() {
        return "Envelope{kind=" + kind + ", key=" + key + ", timestamp=" + timestamp + ", value=" + value
                + ", wallTime=" + wallTime + "}";
    }
}
