package io.klink.workloads.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.SourceReaderOptions;
import org.apache.flink.connector.base.source.reader.fetcher.SingleThreadFetcherManager;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.KafkaRecordEmitter;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.kafka.shaded.org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.flink.kafka.shaded.org.apache.kafka.common.TopicPartition;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.InstantiationUtil;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.junit.jupiter.api.Test;

/** --source-read-ahead: which source a query gets, how its consumer is configured, how far its fetcher reads. */
class ReadAheadKafkaSourceTest {

    private static final TopicPartition PARTITION = new TopicPartition("r1-q00", 0);

    private static QueryPipelines.Run run(long fetchBytes, int readAhead) {
        return new QueryPipelines.Run("localhost:9092", "r1", "r1-metrics", 1000, 200, 200, fetchBytes, readAhead,
                null, false, "query", List.of(new QueryPipelines.Query("q00", "r1-q00", 0)));
    }

    private static Source<String, KafkaPartitionSplit, ?> source(int readAhead, SimpleStringSchema values) {
        return QueryPipelines.kafkaSource(run(0, readAhead), "q00", "r1-q00", values);
    }

    @Test
    void noReadAheadIsFlinksKafkaSourceAndAnyIsOurs() {
        assertInstanceOf(KafkaSource.class, source(0, new SimpleStringSchema()));
        ReadAheadKafkaSource<String> ours = assertInstanceOf(ReadAheadKafkaSource.class,
                source(64, new SimpleStringSchema()));
        assertEquals(64, ours.readAhead());
        assertEquals(Boundedness.CONTINUOUS_UNBOUNDED, ours.getBoundedness());
        assertEquals("String", ours.getProducedType().toString());
        assertThrows(IllegalArgumentException.class, () -> new ReadAheadKafkaSource<>(
                KafkaSource.<String>builder().setBootstrapServers("localhost:9092").setTopics("t")
                        .setValueOnlyDeserializer(new SimpleStringSchema()).build(),
                new Properties(), new SimpleStringSchema(), 0));
    }

    /** Flink ships the source to the TaskManagers serialized; a query's job graph takes it like Flink's. */
    @Test
    void aQueryReadingAheadIsAJobGraphLikeAnyOther() throws Exception {
        ReadAheadKafkaSource<String> copy = InstantiationUtil.clone(
                (ReadAheadKafkaSource<String>) source(64, new SimpleStringSchema()));
        assertEquals(64, copy.readAhead());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        QueryPipelines.source(env, run(0, 64), "q00", "r1-q00", new CsvLineDeserializer("point")).print();
        assertNotNull(env.getStreamGraph().getJobGraph());
    }

    @Test
    void itsConsumerIsConfiguredAsTheConnectorsOwn() {
        Properties reader = ReadAheadKafkaSource.readerProperties(
                QueryPipelines.consumerProperties(run(4_194_304, 8), "q00"), OffsetsInitializer.earliest());
        assertEquals("localhost:9092", reader.getProperty("bootstrap.servers"));
        assertEquals("r1-q00", reader.getProperty("group.id"));
        assertEquals("4194304", reader.getProperty("max.partition.fetch.bytes"));
        assertEquals("org.apache.flink.kafka.shaded.org.apache.kafka.common.serialization.ByteArrayDeserializer",
                reader.getProperty("value.deserializer"));
        assertEquals(reader.getProperty("value.deserializer"), reader.getProperty("key.deserializer"));
        assertEquals("false", reader.getProperty("enable.auto.commit"));
        assertEquals("earliest", reader.getProperty("auto.offset.reset"));
        assertEquals("r1-q00", reader.getProperty("client.id.prefix"));
        assertEquals(null, QueryPipelines.consumerProperties(run(0, 8), "q00").getProperty("max.partition.fetch.bytes"));
    }

    /** Fails when a connector upgrade changes what its builder adds, which readerProperties mirrors. */
    @Test
    void itsConsumerPropertiesAreExactlyThoseTheConnectorsOwnReaderWouldGet() throws Exception {
        Properties builder = QueryPipelines.consumerProperties(run(4_194_304, 8), "q00");
        KafkaSource<String> kafka = KafkaSource.<String>builder().setProperties(builder).setTopics("r1-q00")
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setValueOnlyDeserializer(new SimpleStringSchema()).build();
        Field props = KafkaSource.class.getDeclaredField("props");  // private: the connector's reader gets them
        props.setAccessible(true);
        assertEquals(props.get(kafka), ReadAheadKafkaSource.readerProperties(builder, OffsetsInitializer.earliest()));
    }

    @Test
    void theQueueCapacityReachesTheFetcherManager() throws Exception {
        Configuration config = ReadAheadKafkaSource.elementQueue(300);
        assertEquals(300, config.get(SourceReaderOptions.ELEMENT_QUEUE_CAPACITY));
        SingleThreadFetcherManager<ConsumerRecord<byte[], byte[]>, KafkaPartitionSplit> fetchers =
                new SingleThreadFetcherManager<>(Batches::new, config);
        assertEquals(300, fetchers.getQueue().remainingCapacity());
        fetchers.close(1000);
    }

    @Test
    void creatingAReaderOpensTheDeserializerWithTheReadersMetricsAndClassLoader() throws Exception {
        OpenedStrings values = new OpenedStrings();
        try (SourceReader<String, KafkaPartitionSplit> reader = source(8, values).createReader(new Context())) {
            assertNotNull(reader);
            assertTrue(values.opened, "the value deserializer was never opened");
        }
    }

    /** A task that does not poll (paused) still has its fetcher read N batches (Flink's Kafka source: 2). */
    @Test
    void aPausedReadersFetcherFillsItsQueueAndTheTaskThenReadsEveryBatchInOrder() throws Exception {
        int readAhead = 16;
        Batches batches = new Batches();
        KafkaRecordDeserializationSchema<String> values = KafkaRecordDeserializationSchema.valueOnly(
                new SimpleStringSchema());
        ReadAheadKafkaSource<String> source = (ReadAheadKafkaSource<String>) source(readAhead, new SimpleStringSchema());
        try (ReadAheadKafkaSource.Reader<String> reader = source.reader(() -> batches,
                new KafkaRecordEmitter<>(values), new Context())) {
            reader.start();
            reader.addSplits(List.of(new KafkaPartitionSplit(PARTITION, 0)));
            // the fetcher fetches one batch more than the queue holds and blocks handing it over (2 + 1 in Flink's)
            waitFor(() -> batches.fetched.get() >= readAhead + 1,
                    () -> "the fetcher stopped at " + batches.fetched.get() + " batches");
            Thread.sleep(300);
            assertEquals(readAhead + 1, batches.fetched.get());

            Collected out = new Collected();
            waitFor(() -> {
                pollOnce(reader, out);
                return out.values.size() >= readAhead + 1;
            }, () -> "the task read only " + out.values);
            assertEquals(IntStream.rangeClosed(0, readAhead).mapToObj(i -> "v" + i).toList(),
                    out.values.subList(0, readAhead + 1));
        }
    }

    private static void pollOnce(SourceReader<String, ?> reader, ReaderOutput<String> out) {
        try {
            reader.pollNext(out);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void waitFor(BooleanSupplier condition, Supplier<String> otherwise) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, otherwise);
            Thread.sleep(5);
        }
    }

    /** A split reader that answers every fetch with one record of the assigned split, offsets counting up. */
    private static final class Batches implements SplitReader<ConsumerRecord<byte[], byte[]>, KafkaPartitionSplit> {
        final AtomicInteger fetched = new AtomicInteger();
        private volatile String split;

        @Override
        public RecordsWithSplitIds<ConsumerRecord<byte[], byte[]>> fetch() {
            long offset = fetched.getAndIncrement();
            RecordsBySplits.Builder<ConsumerRecord<byte[], byte[]>> batch = new RecordsBySplits.Builder<>();
            batch.add(split, new ConsumerRecord<>(PARTITION.topic(), PARTITION.partition(), offset, null,
                    ("v" + offset).getBytes(StandardCharsets.UTF_8)));
            return batch.build();
        }

        @Override
        public void handleSplitsChanges(SplitsChange<KafkaPartitionSplit> change) {
            split = change.splits().get(0).splitId();
        }

        @Override
        public void wakeUp() {
        }

        @Override
        public void close() {
        }
    }

    private static final class OpenedStrings extends SimpleStringSchema {
        boolean opened;

        @Override
        public void open(DeserializationSchema.InitializationContext context) {
            opened = context.getMetricGroup() != null && context.getUserCodeClassLoader() != null;
        }
    }

    private static final class Collected implements ReaderOutput<String> {
        final List<String> values = new ArrayList<>();

        @Override
        public void collect(String value) {
            values.add(value);
        }

        @Override
        public void collect(String value, long timestamp) {
            values.add(value);
        }

        @Override
        public void emitWatermark(Watermark watermark) {
        }

        @Override
        public void markIdle() {
        }

        @Override
        public void markActive() {
        }

        @Override
        public SourceOutput<String> createOutputForSplit(String splitId) {
            return this;
        }

        @Override
        public void releaseOutputForSplit(String splitId) {
        }
    }

    private static final class Context implements SourceReaderContext {
        private final SourceReaderMetricGroup metrics = UnregisteredMetricsGroup.createSourceReaderMetricGroup();

        @Override
        public SourceReaderMetricGroup metricGroup() {
            return metrics;
        }

        @Override
        public Configuration getConfiguration() {
            return new Configuration();
        }

        @Override
        public String getLocalHostName() {
            return "localhost";
        }

        @Override
        public int getIndexOfSubtask() {
            return 0;
        }

        @Override
        public void sendSplitRequest() {
        }

        @Override
        public void sendSourceEventToCoordinator(SourceEvent event) {
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            return SimpleUserCodeClassLoader.create(getClass().getClassLoader());
        }
    }
}
