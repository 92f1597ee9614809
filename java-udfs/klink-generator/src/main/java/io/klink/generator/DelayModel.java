package io.klink.generator;

import java.util.SplittableRandom;

/**
 * Network delay of one event (DESIGN.md section 4): the event with event time {@code e} is sent at
 * {@code e + sampleDelayMs(rng)}. Implementations must be stateless apart from the random source
 * they are given (one per topic), so the delays of a topic are reproducible from the seed.
 */
public interface DelayModel {

    /** One delay in milliseconds, {@code >= 0}. */
    long sampleDelayMs(SplittableRandom rng);

    /**
     * True if every sample has the same value. Sending order then equals generation order and the
     * generator uses a FIFO instead of a priority queue.
     */
    default boolean isConstant() {
        return false;
    }

    /** The canonical spec string, e.g. {@code const:300ms}; parsing it gives an equal model. */
    String spec();
}
