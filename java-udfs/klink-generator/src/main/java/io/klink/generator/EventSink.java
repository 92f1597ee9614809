package io.klink.generator;

/** Where rendered events go (Kafka in production, a list in tests). */
public interface EventSink {

    /**
     * Sends {@code value[0..length)} to topic number {@code topic}. The buffer is reused after the
     * call returns: copy it if it is kept.
     */
    void send(int topic, byte[] value, int length);
}
