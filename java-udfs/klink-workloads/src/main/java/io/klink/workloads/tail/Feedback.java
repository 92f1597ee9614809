package io.klink.workloads.tail;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.flink.kafka.shaded.org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.flink.kafka.shaded.org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.flink.kafka.shaded.org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.flink.kafka.shaded.org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.flink.kafka.shaded.org.apache.kafka.common.TopicPartition;
import org.apache.flink.kafka.shaded.org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.flink.kafka.shaded.org.apache.kafka.common.serialization.StringSerializer;

/**
 * The feedback channel from downstream tasks to upstream ones, across TaskManagers: a Kafka topic of the run
 * (one partition) holding {@code key -> value} statements such as "q00/stage-2/3 -> mean latency". One per JVM
 * and topic, shared by every task of the job in this TaskManager ({@link #join}/{@link #leave} count them): a
 * producer that sends at once, and a reader thread that keeps the latest value of every key.
 */
public final class Feedback {

    private static final Map<String, Feedback> OPEN = new HashMap<>();
    private static final Duration POLL = Duration.ofMillis(20);

    private final String name;
    private final KafkaProducer<String, String> producer;
    private final String topic;
    private final Map<String, String> latest = new ConcurrentHashMap<>();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final Thread reader;
    private volatile boolean running = true;
    private int users;

    private Feedback(String bootstrap, String topic) {
        this.name = bootstrap + "|" + topic;
        this.topic = topic;
        this.producer = new KafkaProducer<>(properties(bootstrap, "linger.ms", "0", "acks", "1"),
                new StringSerializer(), new StringSerializer());
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(properties(bootstrap, "auto.offset.reset",
                "earliest", "enable.auto.commit", "false"), new StringDeserializer(), new StringDeserializer());
        consumer.assign(List.of(new TopicPartition(topic, 0)));
        this.reader = new Thread(() -> read(consumer), "klink-feedback-" + topic);
        reader.setDaemon(true);
        reader.start();
    }

    /** The JVM's channel on {@code topic}, opened by its first user. */
    public static synchronized Feedback join(String bootstrap, String topic) {
        Feedback feedback = OPEN.computeIfAbsent(bootstrap + "|" + topic, k -> new Feedback(bootstrap, topic));
        feedback.users++;
        return feedback;
    }

    /** Closes the channel when its last user leaves (tasks call this from close()). */
    public void leave() {
        synchronized (Feedback.class) {
            if (--users > 0) {
                return;
            }
            OPEN.remove(name);
        }
        running = false;
        producer.close(Duration.ofSeconds(2));
        try {
            reader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Leaves {@code feedback} if a task joined it; returns null, for the task's field. */
    public static Feedback release(Feedback feedback) {
        if (feedback != null) {
            feedback.leave();
        }
        return null;
    }

    public void publish(String key, String value) {
        producer.send(new ProducerRecord<>(topic, 0, key, value));
    }

    /** A statement stream: every value published under {@code key}, in order, on the reader thread. */
    private record Listener(String key, Consumer<String> onValue) {}

    /** Calls {@code onValue} (on the channel's reader thread) with every value later published under {@code key}. */
    public Object listen(String key, Consumer<String> onValue) {
        Listener listener = new Listener(key, onValue);
        listeners.add(listener);
        return listener;
    }

    public void stopListening(Object listener) {
        listeners.remove(listener);
    }

    /** The last value published under {@code key} by any TaskManager, null before the first. */
    public String latest(String key) {
        return latest.get(key);
    }

    private void read(KafkaConsumer<String, String> consumer) {
        try (consumer) {
            while (running) {
                for (ConsumerRecord<String, String> r : consumer.poll(POLL)) {
                    latest.put(r.key(), r.value());
                    for (Listener listener : listeners) {
                        if (listener.key().equals(r.key())) {
                            listener.onValue().accept(r.value());
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            latest.put("error", e.toString());  // the balancer then keeps its last shares
        }
    }

    /** Now as microseconds of wall-clock time (comparable across the TaskManagers of one machine). */
    public static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }

    private static Properties properties(String bootstrap, String... pairs) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        for (int i = 0; i < pairs.length; i += 2) {
            p.put(pairs[i], pairs[i + 1]);
        }
        return p;
    }
}
