package io.klink.generator;

/** Growable ring buffer; requires entries to be added in non-decreasing send time. */
final class FifoSendQueue implements SendQueue {

    private long[] sendAt = new long[1 << 12];
    private long[] eventTimeMs = new long[1 << 12];
    private int[] topic = new int[1 << 12];
    private long[] packed = new long[1 << 12];
    private int head;
    private int size;
    private long lastAdded = Long.MIN_VALUE;

    @Override
    public void add(long sendAtNanos, long eventTime, int topicIndex, long fields) {
        if (sendAtNanos < lastAdded) {
            throw new IllegalStateException("FIFO send queue needs non-decreasing send times");
        }
        lastAdded = sendAtNanos;
        if (size == sendAt.length) {
            grow();
        }
        int i = (head + size) & (sendAt.length - 1);
        sendAt[i] = sendAtNanos;
        eventTimeMs[i] = eventTime;
        topic[i] = topicIndex;
        packed[i] = fields;
        size++;
    }

    private void grow() {
        int n = sendAt.length;
        long[] s = new long[n * 2];
        long[] e = new long[n * 2];
        int[] t = new int[n * 2];
        long[] p = new long[n * 2];
        for (int j = 0; j < size; j++) {
            int i = (head + j) & (n - 1);
            s[j] = sendAt[i];
            e[j] = eventTimeMs[i];
            t[j] = topic[i];
            p[j] = packed[i];
        }
        sendAt = s;
        eventTimeMs = e;
        topic = t;
        packed = p;
        head = 0;
    }

    @Override
    public boolean isEmpty() {
        return size == 0;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public long peekSendAt() {
        return sendAt[head];
    }

    @Override
    public long peekEventTimeMs() {
        return eventTimeMs[head];
    }

    @Override
    public int peekTopic() {
        return topic[head];
    }

    @Override
    public long peekPacked() {
        return packed[head];
    }

    @Override
    public void removeFirst() {
        if (size == 0) {
            throw new IllegalStateException("empty");
        }
        head = (head + 1) & (sendAt.length - 1);
        size--;
    }

    @Override
    public long sendAtAt(int i) {
        return sendAt[(head + i) & (sendAt.length - 1)];
    }

    @Override
    public int topicAt(int i) {
        return topic[(head + i) & (sendAt.length - 1)];
    }

    @Override
    public long packedAt(int i) {
        return packed[(head + i) & (sendAt.length - 1)];
    }
}
