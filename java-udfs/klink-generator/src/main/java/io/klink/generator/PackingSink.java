package io.klink.generator;

import java.util.Arrays;

/**
 * Packs the events of one send burst into as few Kafka records as possible: the events a topic gets in one
 * burst (every event whose send time had come when the generator looked at the clock) become one record
 * value, newline-separated, cut at {@code maxBytes}. Nothing waits for a later event, so no event is sent
 * later than it would be alone; what changes is that the producer, the broker and the Flink source pay their
 * per-record costs once per burst instead of once per event. Events never contain a newline (JSON and CSV
 * lines), and every reader splits record values into lines ({@code LineEventsDeserializer} in the jobs,
 * {@code kafka_io.topic_values} in the harness).
 *
 * <p>{@code maxBytes <= 0} turns packing off: one record per event.
 */
final class PackingSink implements EventSink {

    private final EventSink records;
    private final int maxBytes;
    private final byte[][] buffers;
    private final int[] lengths;

    PackingSink(EventSink records, int topics, int maxBytes) {
        this.records = records;
        this.maxBytes = maxBytes;
        this.buffers = new byte[topics][];
        this.lengths = new int[topics];
    }

    @Override
    public void send(int topic, byte[] value) {
        if (maxBytes <= 0) {
            records.send(topic, value);
            return;
        }
        int length = lengths[topic];
        if (length > 0 && length + 1 + value.length > maxBytes) {
            flush(topic);
            length = 0;
        }
        if (length > 0) {
            buffer(topic, length + 1)[length++] = '\n';
        }
        System.arraycopy(value, 0, buffer(topic, length + value.length), length, value.length);
        lengths[topic] = length + value.length;
    }

    /** Hands every topic's packed events to the underlying sink. */
    @Override
    public void endOfBurst() {
        for (int topic = 0; topic < lengths.length; topic++) {
            if (lengths[topic] > 0) {
                flush(topic);
            }
        }
        records.endOfBurst();
    }

    private void flush(int topic) {
        records.send(topic, Arrays.copyOf(buffers[topic], lengths[topic]));
        lengths[topic] = 0;
    }

    private byte[] buffer(int topic, int capacity) {
        byte[] b = buffers[topic];
        if (b == null || b.length < capacity) {
            b = Arrays.copyOf(b == null ? new byte[0] : b, Math.max(capacity, b == null ? 256 : 2 * b.length));
            buffers[topic] = b;
        }
        return b;
    }
}
