package io.klink.generator;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends events with the Java producer: null key, JSON value, acks=1, batching by linger.ms/batch.size.
 * A topic with a single partition gets partition 0 explicitly (skips the partitioner; same result).
 * Failed sends are counted from the producer's own {@code record-error-total} metric; only every
 * {@link #CALLBACK_EVERY}-th record carries a callback, to keep the first error's message: a callback per
 * record costs ~6 % of the send path's throughput, and a failed batch fails all of its records alike.
 */
final class KafkaSink implements EventSink, Callback, AutoCloseable {

    /** How long send()/partitionsFor() may block (metadata, full buffer) before failing. */
    static final int MAX_BLOCK_MS = 10_000;
    static final int CALLBACK_EVERY = 256;

    private final KafkaProducer<byte[], byte[]> producer;
    private final Admin admin;
    private final String[] topics;
    private final Integer[] partitions;
    /** Where topic number i goes: the run's topics, or warm-up topics (switched from another thread). */
    private record Routing(String[] topics, Integer[] partitions) {
    }

    private final Routing runRouting;
    private volatile Routing routing;
    private final Metric recordErrors;
    private long errorsBefore;
    private int untilCallback;
    private volatile String firstError;

    KafkaSink(String bootstrap, List<String> topics, String compression, int lingerMs, int batchSize) {
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
        this.recordErrors = producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals("producer-metrics")
                        && e.getKey().name().equals("record-error-total"))
                .map(Map.Entry::getValue).findFirst()
                .orElseThrow(() -> new IllegalStateException("producer has no record-error-total metric"));
        // Created now, not after the warm-up: loading its classes later would invalidate compiled code
        // of the send path (class hierarchy changes) right when the run starts.
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.CLIENT_ID_CONFIG, "klink-generator-admin",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000));
        this.topics = topics.toArray(new String[0]);
        this.partitions = new Integer[this.topics.length];
        this.runRouting = new Routing(this.topics, this.partitions);
        this.routing = runRouting;
    }

    /**
     * Fetches metadata of every topic (the broker auto-creates missing ones), which also opens the
     * connection; loads the lz4 codec (its native library is unpacked on first use, which would
     * otherwise stall the first send by tens of ms); and exercises topic deletion on the warm-up
     * topics (they do not exist yet) so that code is loaded before the warm-up.
     */
    void connect(String compression, List<String> warmUpTopics) {
        if ("lz4".equals(compression)) {
            for (String factory : new String[]{"net.jpountz.lz4.LZ4Factory", "net.jpountz.xxhash.XXHashFactory"}) {
                try {
                    Class.forName(factory).getMethod("fastestInstance").invoke(null);
                } catch (ReflectiveOperationException | LinkageError e) {
                    // best effort: the producer loads it itself on the first batch
                }
            }
        }
        fillPartitions(topics, partitions);
        if (!warmUpTopics.isEmpty()) {
            deleteTopics(warmUpTopics);
        }
    }

    private void fillPartitions(String[] names, Integer[] out) {
        for (int i = 0; i < names.length; i++) {
            out[i] = producer.partitionsFor(names[i]).size() == 1 ? 0 : null;
        }
    }

    @Override
    public void send(int topic, byte[] value) {
        Routing r = routing;
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(r.topics[topic], r.partitions[topic], null, null, value);
        if (--untilCallback <= 0) {
            untilCallback = CALLBACK_EVERY;
            producer.send(record, this);
        } else {
            producer.send(record);
        }
    }

    /**
     * Sends topic number i to {@code warmUpTopics.get(i)} until {@link #routeToRunTopics()}: the warm-up
     * must run through this very class, with as many topics as the run, so that the JIT's profile
     * and the producer's batching match the run. Fetches (auto-creates) the topics' metadata first.
     * May be called from another thread than the one sending.
     */
    void routeTo(List<String> warmUpTopics) {
        String[] names = warmUpTopics.toArray(new String[0]);
        Integer[] parts = new Integer[names.length];
        fillPartitions(names, parts);
        routing = new Routing(names, parts);
    }

    /** Back to the run's topics; forgets send errors seen so far. */
    void routeToRunTopics() {
        routing = runRouting;
        errorsBefore = errorTotal();
        firstError = null;
    }

    /** Best effort, at most ~5 s: deletes topics; returns null or what went wrong. */
    String deleteTopics(List<String> names) {
        try {
            admin.deleteTopics(names).all().get(5, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause() instanceof UnknownTopicOrPartitionException ? null : e.getCause().toString();
        } catch (Exception e) {
            return e.toString();
        }
    }

    @Override
    public void onCompletion(RecordMetadata metadata, Exception exception) {
        if (exception != null && firstError == null) {
            firstError = exception.toString();
        }
    }

    /** Records of the run that failed (after the producer's retries); exact once flushed. */
    long errors() {
        return errorTotal() - errorsBefore;
    }

    private long errorTotal() {
        return ((Number) recordErrors.metricValue()).longValue();
    }

    String firstError() {
        return firstError;
    }

    /** Producer metrics worth keeping in the summary (NaN when the producer does not report one). */
    Map<String, Double> metrics() {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String name : List.of("bufferpool-wait-time-ns-total", "batch-size-avg", "records-per-request-avg",
                "compression-rate-avg", "record-queue-time-avg", "request-latency-avg")) {
            out.put(name, Double.NaN);
        }
        producer.metrics().forEach((key, metric) -> {
            if ("producer-metrics".equals(key.group()) && out.containsKey(key.name())
                    && metric.metricValue() instanceof Number n) {
                out.put(key.name(), n.doubleValue());
            }
        });
        return out;
    }

    void flush() {
        producer.flush();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
        admin.close(Duration.ofSeconds(5));
    }
}
