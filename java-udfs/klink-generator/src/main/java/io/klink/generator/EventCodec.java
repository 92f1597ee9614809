package io.klink.generator;

import java.util.SplittableRandom;

/**
 * A workload's events: {@link #draw} takes one event's random fields from the topic's stream (packed in a
 * long, always the same number of draws, so streams stay reproducible per seed), {@link #encode} renders
 * it with its event time as the record value sent to Kafka.
 */
public interface EventCodec {

    /** By default one long: a seed {@link #encode} derives every field from. */
    default long draw(SplittableRandom rng) {
        return rng.nextLong();
    }

    /** Renders one event into a new array (the caller owns it). */
    byte[] encode(long packed, long eventTimeMs);

    /**
     * The codec one topic's events are drawn with, in generation order. Stateless codecs share themselves;
     * a codec whose events depend on the earlier ones (LRB's cars move between their reports) returns a
     * fresh one per topic and per run.
     */
    default EventCodec forTopic(int topic) {
        return this;
    }
}
