package io.klink.workloads.common;

import io.klink.metrics.Envelope;
import io.klink.metrics.InstrumentedWindowOperator;
import io.klink.metrics.LatencyRecorder;
import io.klink.metrics.MarkerInjector;
import io.klink.sampler.SamplerConfig;
import io.klink.sampler.SamplingOperator;
import io.klink.sampler.ValueModel;
import io.klink.workloads.Workloads;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The instrumented ends every workload's query shares (DESIGN.md §4), operator names prefixed with the
 * query id ({@code q07/}):
 * <pre>
 *   Kafka source -> markers -> [the workload's stateless operators] -> [sampler] | window -> output -> metrics sink
 * </pre>
 * The window starts a new chain, so each query runs as two tasks: source side and window side.
 */
public final class QueryPipelines {

    public static final TypeInformation<Envelope> ENVELOPES = TypeInformation.of(Envelope.class);

    /**
     * What every workload's job config has (see klinkctl/workloads/common.py); {@code sampler} null = none,
     * {@code recordResults}: every key's window result becomes a metric row (to measure accuracy);
     * {@code placement}: {@value #SPLIT} puts every window (and what follows it) in the slot-sharing group
     * {@value #WINDOWS_GROUP}, apart from the sources, so that on two TaskManagers each pipeline spans both.
     */
    public record Run(String bootstrap, String runId, String metricsTopic, long outOfOrdernessMs,
                      long markerIntervalMs, long watermarkIntervalMs, long sourceFetchBytes, int sourceReadAhead,
                      Sampler sampler, boolean recordResults, String placement, List<Query> queries) {}

    public static final String SPLIT = "split";
    public static final String WINDOWS_GROUP = "windows";

    /** One query: its id (the operator-name prefix), its input topic and its window offset. */
    public record Query(String id, String topic, long windowOffsetMs) {}

    /** The job config's sampler settings, made a query's {@link SamplerConfig} by {@link #sampled}. */
    public record Sampler(String kind, long substreamMs, double error, double confidence, int history, long seed) {}

    /** Refuses unknown and missing keys, so a misspelt key is an error rather than a silent Java default. */
    public static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
            .configure(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES, true);

    private QueryPipelines() {}

    /** The part of a job config that is {@code type}'s (the other keys are the common ones or the workload's). */
    public static <T extends Record> T readConfig(String json, Class<T> type) throws IOException {
        ObjectNode part = (ObjectNode) JSON.readTree(json);
        part.retain(Workloads.keys(type));
        return JSON.treeToValue(part, type);
    }

    /**
     * The run's common settings from a job config whose workload reads {@code workloadConfig}; sets the job's
     * watermark interval.
     *
     * @throws IllegalArgumentException naming the first key neither the common settings nor the workload know
     */
    public static Run start(StreamExecutionEnvironment env, String configJson,
                            Class<? extends Record> workloadConfig) throws IOException {
        refuseUnknownKeys(JSON.readTree(configJson), Workloads.jobConfigKeys(workloadConfig));
        Run run = readConfig(configJson, Run.class);
        env.getConfig().setAutoWatermarkInterval(run.watermarkIntervalMs());
        return run;
    }

    /** Refuses a key the common settings, the workload, the sampler settings or a query do not know. */
    static void refuseUnknownKeys(JsonNode config, Set<String> known) {
        refuseUnknownKeys(config, known, "job config");
        JsonNode sampler = config.path("sampler");
        if (sampler.isObject()) {
            refuseUnknownKeys(sampler, Workloads.keys(Sampler.class), "job config's sampler");
        }
        config.path("queries").forEach(query -> refuseUnknownKeys(query, Workloads.keys(Query.class), "job config's query"));
    }

    private static void refuseUnknownKeys(JsonNode node, Set<String> known, String what) {
        if (!node.isObject()) {
            throw new IllegalArgumentException("the " + what + " must be a JSON object");
        }
        node.fieldNames().forEachRemaining(key -> {
            if (!known.contains(key)) {
                throw new IllegalArgumentException("unknown " + what + " key '" + key + "'; known: " + known);
            }
        });
    }

    /** Kafka source (event time from the envelopes, bounded out-of-orderness) followed by the marker injector. */
    public static DataStream<Envelope> source(StreamExecutionEnvironment env, Run run, String queryId, String topic,
                                              DeserializationSchema<Envelope> deserializer) {
        String q = queryId + "/";
        WatermarkStrategy<Envelope> watermarks = WatermarkStrategy
                .<Envelope>forBoundedOutOfOrderness(Duration.ofMillis(run.outOfOrdernessMs()))
                .withTimestampAssigner((event, previous) -> event.timestamp);
        return env.fromSource(kafkaSource(run, queryId, topic, deserializer), watermarks, q + "source")
                .transform(q + "markers", ENVELOPES, new MarkerInjector(run.markerIntervalMs()));
    }

    /**
     * The query's input topic, from its start, as {@code deserializer} reads it; {@code sourceFetchBytes} &gt; 0
     * sets how much one fetch brings (Kafka's {@code max.partition.fetch.bytes}), i.e. how far a paused source has
     * read ahead when it resumes. {@code sourceReadAhead} 0 is Flink's {@link KafkaSource}, whose fetcher holds two
     * poll batches ahead of the task; N &gt; 0 is a {@link ReadAheadKafkaSource} of the same splits holding N.
     */
    public static <T> Source<T, KafkaPartitionSplit, KafkaSourceEnumState> kafkaSource(
            Run run, String queryId, String topic, DeserializationSchema<T> deserializer) {
        Properties consumer = consumerProperties(run, queryId);
        OffsetsInitializer fromStart = OffsetsInitializer.earliest();
        KafkaSource<T> kafka = KafkaSource.<T>builder()
                .setProperties(consumer)
                .setTopics(topic)
                .setStartingOffsets(fromStart)
                .setValueOnlyDeserializer(deserializer)
                .build();
        if (run.sourceReadAhead() == 0) {
            return kafka;
        }
        return new ReadAheadKafkaSource<>(kafka, ReadAheadKafkaSource.readerProperties(consumer, fromStart),
                deserializer, run.sourceReadAhead());
    }

    /** What the query's Kafka consumer is told besides Flink's defaults: the broker, its group, the fetch size. */
    static Properties consumerProperties(Run run, String queryId) {
        Properties consumer = new Properties();
        consumer.setProperty("bootstrap.servers", run.bootstrap());
        consumer.setProperty("group.id", run.runId() + "-" + queryId);
        if (run.sourceFetchBytes() > 0) {
            consumer.setProperty("max.partition.fetch.bytes", Long.toString(run.sourceFetchBytes()));
        }
        return consumer;
    }

    /**
     * The query's sampler (klink-sampler) in front of its window, if the run has one: it replaces the
     * source's watermarks with its own and decides which events reach the window. {@code value}: what the
     * window aggregates (Eq. 4.4's cv²). A sliding window passes its slide as {@code periodMs} (a tumbling one
     * its size): the sub-streams must divide it, so each window is made of whole sub-streams and a sub-stream's
     * weighted sample counts in every window that contains it.
     */
    public static DataStream<Envelope> sampled(DataStream<Envelope> in, Run run, String queryId, long windowMs,
                                               long periodMs, long windowOffsetMs, ValueModel value) {
        Sampler s = run.sampler();
        if (s == null) {
            return in;
        }
        if (periodMs % s.substreamMs() != 0) {
            throw new IllegalArgumentException("the sub-stream length (" + s.substreamMs()
                    + " ms) must divide the window's slide (" + periodMs + " ms)");
        }
        SamplerConfig config = new SamplerConfig(s.kind(), s.substreamMs(), windowMs, windowOffsetMs, s.error(),
                s.confidence(), s.history(), s.seed() * 31 + queryId.hashCode(), value);
        return in.transform(queryId + "/sampler", ENVELOPES, new SamplingOperator(config));
    }

    /** The window (a new chain), the output operator that records latencies, and the metrics sink. */
    public static void windowToMetrics(DataStream<Envelope> in, Run run, String queryId,
                                       InstrumentedWindowOperator window) {
        windowToMetrics(in, run, queryId, "window", window);
    }

    /** As above, the window named {@code queryId/windowName} (a query with more than one window names its last). */
    public static void windowToMetrics(DataStream<Envelope> in, Run run, String queryId, String windowName,
                                       InstrumentedWindowOperator window) {
        String q = queryId + "/";
        SingleOutputStreamOperator<Envelope> windowed = in.transform(q + windowName, ENVELOPES, window);
        if (SPLIT.equals(run.placement())) {
            windowed.slotSharingGroup(WINDOWS_GROUP);  // the operators after it inherit the group
        }
        windowed.startNewChain()
                .transform(q + "output", Types.STRING, new LatencyRecorder(queryId, run.recordResults()))
                .sinkTo(metricsSink(run)).name(q + "metrics-sink");
    }

    /** The run's metrics topic, where klinkctl's collector reads every metric row. */
    public static KafkaSink<String> metricsSink(Run run) {
        return KafkaSink.<String>builder()
                .setBootstrapServers(run.bootstrap())
                .setRecordSerializer(KafkaRecordSerializationSchema.builder()
                        .setTopic(run.metricsTopic())
                        .setValueSerializationSchema(new SimpleStringSchema())
                        .build())
                .setDeliveryGuarantee(DeliveryGuarantee.NONE)
                .setProperty("linger.ms", "5")
                .build();
    }
}
