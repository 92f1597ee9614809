package io.klink.generator;

/** Where rendered events go (Kafka in production, a list in tests). */
public interface EventSink {

    /** Sends {@code value} (the sink owns it from now on) to topic number {@code topic}. */
    void send(int topic, byte[] value);

    /**
     * The generator has sent every event that was due when it last looked at the clock: a sink that holds
     * events back (see {@link PackingSink}) must pass them on now.
     */
    default void endOfBurst() {
    }
}
