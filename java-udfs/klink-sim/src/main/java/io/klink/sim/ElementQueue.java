package io.klink.sim;

/**
 * A task's input queue (for a source: its unread Kafka backlog) in arrival order: record batches (records of
 * one event time that arrived together) and watermarks. Parallel arrays in a ring: the simulator moves
 * millions of elements, so no object per element.
 */
final class ElementQueue {

    static final byte RECORD = 0;
    static final byte WATERMARK = 1;
    /** The generator's progress record after its last event: one record that only moves event time. */
    static final byte PROGRESS = 2;

    private byte[] kind = new byte[64];
    private long[] time = new long[64];   // event time of a record batch; value of a watermark
    private long[] count = new long[64];  // records in a batch; the input channel of a watermark
    private long[] arrival = new long[64]; // when the element entered this queue, wall ms
    private int head;
    private int size;
    private long records;

    boolean isEmpty() {
        return size == 0;
    }

    long records() {
        return records;
    }

    void pushRecords(long eventTime, long n, long arrivalMs) {
        if (size > 0) {
            int tail = index(size - 1);
            if (kind[tail] == RECORD && time[tail] == eventTime) {
                count[tail] += n;
                records += n;
                return;
            }
        }
        push(RECORD, eventTime, n, arrivalMs);
        records += n;
    }

    void pushProgress(long eventTime, long arrivalMs) {
        push(PROGRESS, eventTime, 1, arrivalMs);
        records++;
    }

    void pushWatermark(long watermark, int channel, long arrivalMs) {
        push(WATERMARK, watermark, channel, arrivalMs);
    }

    byte headKind() {
        return kind[head];
    }

    long headTime() {
        return time[head];
    }

    long headCount() {
        return count[head];
    }

    long headArrival() {
        return arrival[head];
    }

    /** Takes n records off the head batch (all of them pops it). */
    void takeRecords(long n) {
        count[head] -= n;
        records -= n;
        if (count[head] <= 0) {
            pop();
        }
    }

    /**
     * Moves every element, in order, to the end of {@code target}, arriving there at {@code arrivalMs}: a network
     * buffer handed on by Flink's output flusher (SimTask, {@code bufferTimeoutMs}).
     */
    void drainInto(ElementQueue target, long arrivalMs) {
        while (size > 0) {
            switch (kind[head]) {
                case RECORD -> target.pushRecords(time[head], count[head], arrivalMs);
                case PROGRESS -> target.pushProgress(time[head], arrivalMs);
                default -> target.pushWatermark(time[head], (int) count[head], arrivalMs);
            }
            pop();
        }
        records = 0;
    }

    void pop() {
        head = (head + 1) & (kind.length - 1);
        size--;
    }

    private void push(byte k, long t, long c, long a) {
        if (size == kind.length) {
            grow();
        }
        int i = index(size);
        kind[i] = k;
        time[i] = t;
        count[i] = c;
        arrival[i] = a;
        size++;
    }

    private int index(int offset) {
        return (head + offset) & (kind.length - 1);
    }

    private void grow() {
        int n = kind.length * 2;
        byte[] k = new byte[n];
        long[] t = new long[n];
        long[] c = new long[n];
        long[] a = new long[n];
        for (int i = 0; i < size; i++) {
            int j = index(i);
            k[i] = kind[j];
            t[i] = time[j];
            c[i] = count[j];
            a[i] = arrival[j];
        }
        kind = k;
        time = t;
        count = c;
        arrival = a;
        head = 0;
    }
}
