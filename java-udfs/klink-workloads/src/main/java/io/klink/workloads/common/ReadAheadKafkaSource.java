package io.klink.workloads.common;

import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.SourceReaderOptions;
import org.apache.flink.connector.base.source.reader.fetcher.SingleThreadFetcherManager;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceOptions;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.metrics.KafkaSourceReaderMetrics;
import org.apache.flink.connector.kafka.source.reader.KafkaPartitionSplitReader;
import org.apache.flink.connector.kafka.source.reader.KafkaRecordEmitter;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplitState;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.kafka.shaded.org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.flink.kafka.shaded.org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.UserCodeClassLoader;

/**
 * A Kafka source whose fetcher thread may hold {@code readAhead} poll batches ahead of its task
 * ({@code --source-read-ahead}, docs/scheduler.md). Flink's {@link KafkaSource} hands batches to its task through
 * a queue of two (its fetcher manager ignores {@code source.reader.element.queue.capacity}), so a task the
 * scheduler pauses leaves its backlog in Kafka; with a deeper queue the fetcher keeps polling while the task is
 * paused, and the backlog waits in the TaskManager, as in Flink 1.8's input queues.
 *
 * <p>Splits are the wrapped {@link KafkaSource}'s: its enumerator, serializers and boundedness. Only the reader is
 * ours, built from the connector's split reader, record emitter and split state. Unlike the connector's reader it
 * never commits offsets to Kafka: klinkctl's jobs never checkpoint, and nothing reads the group's offsets.
 */
public final class ReadAheadKafkaSource<T>
        implements Source<T, KafkaPartitionSplit, KafkaSourceEnumState>, ResultTypeQueryable<T> {

    private final KafkaSource<T> splits;
    private final Properties consumer;
    private final DeserializationSchema<T> deserializer;
    private final int readAhead;

    /**
     * Reads what {@code splits} assigns with a Kafka consumer configured by {@code consumer} (the properties
     * {@code splits} was built with, see {@link #readerProperties}) and {@code deserializer} on record values.
     */
    ReadAheadKafkaSource(KafkaSource<T> splits, Properties consumer, DeserializationSchema<T> deserializer,
                         int readAhead) {
        if (readAhead < 1) {
            throw new IllegalArgumentException("a source's read-ahead must be at least 1 poll batch, not " + readAhead);
        }
        this.splits = splits;
        this.consumer = consumer;
        this.deserializer = deserializer;
        this.readAhead = readAhead;
    }

    /**
     * {@code builderProperties} and what {@code KafkaSource.builder().build()} adds to them (connector 5.0), so
     * that our consumers are configured as the connector's own: raw bytes, no auto-commit, the starting offsets'
     * reset strategy, and the group id as the client id prefix.
     */
    static Properties readerProperties(Properties builderProperties, OffsetsInitializer startingOffsets) {
        Properties reader = new Properties();
        reader.putAll(builderProperties);
        reader.putIfAbsent("key.deserializer", ByteArrayDeserializer.class.getName());
        reader.putIfAbsent("value.deserializer", ByteArrayDeserializer.class.getName());
        reader.putIfAbsent("enable.auto.commit", "false");
        reader.setProperty("auto.offset.reset",
                startingOffsets.getAutoOffsetResetStrategy().name().toLowerCase());
        reader.putIfAbsent(KafkaSourceOptions.CLIENT_ID_PREFIX.key(), reader.getProperty("group.id"));
        return reader;
    }

    /** Poll batches the fetcher may hold ahead of the task. */
    public int readAhead() {
        return readAhead;
    }

    /** The reader's configuration: an element queue of {@code batches}. */
    static Configuration elementQueue(int batches) {
        return new Configuration().set(SourceReaderOptions.ELEMENT_QUEUE_CAPACITY, batches);
    }

    @Override
    public SourceReader<T, KafkaPartitionSplit> createReader(SourceReaderContext context) throws Exception {
        KafkaRecordDeserializationSchema<T> records = KafkaRecordDeserializationSchema.valueOnly(deserializer);
        records.open(deserializerContext(context));
        KafkaSourceReaderMetrics metrics = new KafkaSourceReaderMetrics(context.metricGroup());
        return reader(() -> new KafkaPartitionSplitReader(consumer, context, metrics),
                new KafkaRecordEmitter<>(records), context);
    }

    /** A reader of {@code splitReaders}' batches, {@link #readAhead} of them queued at most. */
    Reader<T> reader(Supplier<SplitReader<ConsumerRecord<byte[], byte[]>, KafkaPartitionSplit>> splitReaders,
                     RecordEmitter<ConsumerRecord<byte[], byte[]>, T, KafkaPartitionSplitState> emitter,
                     SourceReaderContext context) {
        Configuration config = elementQueue(readAhead);
        return new Reader<>(new SingleThreadFetcherManager<>(splitReaders, config), emitter, config, context);
    }

    /** As KafkaSource opens its deserializer: the reader's metric group, under "deserializer". */
    private static DeserializationSchema.InitializationContext deserializerContext(SourceReaderContext context) {
        return new DeserializationSchema.InitializationContext() {
            @Override
            public MetricGroup getMetricGroup() {
                return context.metricGroup().addGroup("deserializer");
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return context.getUserCodeClassLoader();
            }
        };
    }

    @Override
    public Boundedness getBoundedness() {
        return splits.getBoundedness();
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> createEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context) {
        return splits.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restoreEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context, KafkaSourceEnumState state) throws Exception {
        return splits.restoreEnumerator(context, state);
    }

    @Override
    public SimpleVersionedSerializer<KafkaPartitionSplit> getSplitSerializer() {
        return splits.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KafkaSourceEnumState> getEnumeratorCheckpointSerializer() {
        return splits.getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return splits.getProducedType();
    }

    /** The connector's reader without its offset commits (see the class comment). */
    static final class Reader<T> extends SingleThreadMultiplexSourceReaderBase<
            ConsumerRecord<byte[], byte[]>, T, KafkaPartitionSplit, KafkaPartitionSplitState> {

        Reader(SingleThreadFetcherManager<ConsumerRecord<byte[], byte[]>, KafkaPartitionSplit> fetchers,
               RecordEmitter<ConsumerRecord<byte[], byte[]>, T, KafkaPartitionSplitState> emitter,
               Configuration config, SourceReaderContext context) {
            super(fetchers, emitter, config, context);
        }

        @Override
        protected void onSplitFinished(Map<String, KafkaPartitionSplitState> finished) {
            // nothing to commit: see the class comment
        }

        @Override
        protected KafkaPartitionSplitState initializedState(KafkaPartitionSplit split) {
            return new KafkaPartitionSplitState(split);
        }

        @Override
        protected KafkaPartitionSplit toSplitType(String splitId, KafkaPartitionSplitState state) {
            return state.toKafkaPartitionSplit();
        }
    }
}
