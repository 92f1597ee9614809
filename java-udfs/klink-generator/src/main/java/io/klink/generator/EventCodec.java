package io.klink.generator;

import java.util.SplittableRandom;

/**
 * A workload's events: {@link #draw} takes one event's random fields from the topic's stream (packed in a
 * long, always the same number of draws, so streams stay reproducible per seed), {@link #encode} renders
 * it with its event time as the record value sent to Kafka.
 */
public interface EventCodec {

    long draw(SplittableRandom rng);

    /** Renders one event into a new array (the caller owns it). */
    byte[] encode(long packed, long eventTimeMs);
}
