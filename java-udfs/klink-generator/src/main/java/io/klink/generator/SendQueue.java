package io.klink.generator;

/**
 * Generated events waiting for their send time. Entries are primitives (no per-event objects):
 * scheduled send time (ns since the run's start), event time (epoch ms), topic index, packed fields.
 * {@code peek*} read the entry with the smallest send time; ties leave in insertion order.
 */
public interface SendQueue {

    void add(long sendAtNanos, long eventTimeMs, int topic, long packed);

    boolean isEmpty();

    int size();

    long peekSendAt();

    long peekEventTimeMs();

    int peekTopic();

    long peekPacked();

    void removeFirst();

    /** Send time of the i-th stored entry, {@code 0 <= i < size()}, in no particular order. */
    long sendAtAt(int i);

    /** Topic of the i-th stored entry, same order as {@link #sendAtAt}. */
    int topicAt(int i);

    /** Packed fields of the i-th stored entry, same order as {@link #sendAtAt}. */
    long packedAt(int i);

    /** FIFO when sending order equals generation order (constant delay, regular gaps), else a binary heap. */
    static SendQueue forSchedule(DelayModel delay, Gaps gaps) {
        return delay.isConstant() && gaps.isRegular() ? new FifoSendQueue() : new HeapSendQueue();
    }
}
