package io.klink.generator;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends events with the Java producer: null key, JSON value, acks=1, batching by linger.ms/batch.size.
 * Failed sends of the run are counted (the callback runs on the producer's I/O thread).
 */
final class KafkaSink implements EventSink, Callback, AutoCloseable {

    /** How long send()/partitionsFor() may block (metadata, full buffer) before failing. */
    static final int MAX_BLOCK_MS = 10_000;

    private final String bootstrap;
    private final KafkaProducer<byte[], byte[]> producer;
    private final String[] topics;
    private final AtomicLong errors = new AtomicLong();
    private volatile String firstError;

    KafkaSink(String bootstrap, List<String> topics, String compression, int lingerMs, int batchSize) {
        this.bootstrap = bootstrap;
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "klink-generator");
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.LINGER_MS_CONFIG, Integer.toString(lingerMs));
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(batchSize));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Integer.toString(MAX_BLOCK_MS));
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(p);
        this.topics = topics.toArray(new String[0]);
    }

    /**
     * Fetches metadata of every topic (the broker auto-creates missing ones), which also opens the
     * connection, and loads the lz4 codec (its native library is unpacked on first use, which would
     * otherwise stall the first send of the run by tens of ms).
     */
    void connect(String compression) {
        if ("lz4".equals(compression)) {
            for (String factory : new String[]{"net.jpountz.lz4.LZ4Factory", "net.jpountz.xxhash.XXHashFactory"}) {
                try {
                    Class.forName(factory).getMethod("fastestInstance").invoke(null);
                } catch (ReflectiveOperationException | LinkageError e) {
                    // best effort: the producer loads it itself on the first batch
                }
            }
        }
        for (String t : topics) {
            producer.partitionsFor(t);
        }
    }

    @Override
    public void send(int topic, byte[] value) {
        producer.send(new ProducerRecord<>(topics[topic], null, value), this);
    }

    /** A sink into {@code topic} through the same producer (send errors there are not counted). */
    EventSink sinkTo(String topic) {
        return (t, value) -> producer.send(new ProducerRecord<>(topic, null, value));
    }

    /** Best effort: deletes a topic (the warm-up topic) without waiting more than a few seconds. */
    String deleteTopic(String topic) {
        Map<String, Object> conf = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.CLIENT_ID_CONFIG, "klink-generator-admin",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        try (Admin admin = Admin.create(conf)) {
            admin.deleteTopics(List.of(topic)).all().get(5, TimeUnit.SECONDS);
            return null;
        } catch (Exception e) {
            return e.toString();
        }
    }

    @Override
    public void onCompletion(RecordMetadata metadata, Exception exception) {
        if (exception != null && errors.getAndIncrement() == 0) {
            firstError = exception.toString();
        }
    }

    long errors() {
        return errors.get();
    }

    String firstError() {
        return firstError;
    }

    void flush() {
        producer.flush();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
    }
}
