package io.klink.generator;

/** Where rendered events go (Kafka in production, a list in tests). */
public interface EventSink {

    /** Sends {@code value} (the sink owns it from now on) to topic number {@code topic}. */
    void send(int topic, byte[] value);
}
