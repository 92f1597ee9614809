package io.klink.generator;

/**
 * Binary min-heap on (send time, insertion sequence) over parallel primitive arrays, for delay
 * models whose samples vary (sending order differs from generation order).
 */
final class HeapSendQueue implements SendQueue {

    private long[] sendAt = new long[1 << 12];
    private long[] seq = new long[1 << 12];
    private long[] eventTimeMs = new long[1 << 12];
    private int[] topic = new int[1 << 12];
    private long[] packed = new long[1 << 12];
    private int size;
    private long nextSeq;

    @Override
    public void add(long sendAtNanos, long eventTime, int topicIndex, long fields) {
        if (size == sendAt.length) {
            grow();
        }
        int i = size++;
        long s = nextSeq++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!less(sendAtNanos, s, sendAt[parent], seq[parent])) {
                break;
            }
            move(parent, i);
            i = parent;
        }
        set(i, sendAtNanos, s, eventTime, topicIndex, fields);
    }

    @Override
    public void removeFirst() {
        if (size == 0) {
            throw new IllegalStateException("empty");
        }
        int last = --size;
        if (last == 0) {
            return;
        }
        long ls = sendAt[last];
        long lq = seq[last];
        long le = eventTimeMs[last];
        int lt = topic[last];
        long lp = packed[last];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= last) {
                break;
            }
            if (child + 1 < last && less(sendAt[child + 1], seq[child + 1], sendAt[child], seq[child])) {
                child++;
            }
            if (!less(sendAt[child], seq[child], ls, lq)) {
                break;
            }
            move(child, i);
            i = child;
        }
        set(i, ls, lq, le, lt, lp);
    }

    private static boolean less(long sa, long qa, long sb, long qb) {
        return sa < sb || (sa == sb && qa < qb);
    }

    private void move(int from, int to) {
        set(to, sendAt[from], seq[from], eventTimeMs[from], topic[from], packed[from]);
    }

    private void set(int i, long s, long q, long e, int t, long p) {
        sendAt[i] = s;
        seq[i] = q;
        eventTimeMs[i] = e;
        topic[i] = t;
        packed[i] = p;
    }

    private void grow() {
        int n = sendAt.length * 2;
        sendAt = java.util.Arrays.copyOf(sendAt, n);
        seq = java.util.Arrays.copyOf(seq, n);
        eventTimeMs = java.util.Arrays.copyOf(eventTimeMs, n);
        topic = java.util.Arrays.copyOf(topic, n);
        packed = java.util.Arrays.copyOf(packed, n);
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
        return sendAt[0];
    }

    @Override
    public long peekEventTimeMs() {
        return eventTimeMs[0];
    }

    @Override
    public int peekTopic() {
        return topic[0];
    }

    @Override
    public long peekPacked() {
        return packed[0];
    }

    @Override
    public long sendAtAt(int i) {
        return sendAt[i];
    }

    @Override
    public int topicAt(int i) {
        return topic[i];
    }

    @Override
    public long packedAt(int i) {
        return packed[i];
    }
}
