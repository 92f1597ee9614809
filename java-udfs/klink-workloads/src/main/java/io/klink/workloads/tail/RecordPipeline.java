package io.klink.workloads.tail;

import io.klink.workloads.common.QueryPipelines;
import io.klink.workloads.common.QueryPipelines.Query;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A per-record-latency pipeline, the shape of the tail seed's topologies (tail-latency-storm-du-gupta.txt §5: a
 * linear chain of operators connected by shuffle grouping). Per query:
 * <pre>
 *   Kafka source -> spout [-> replay] | stage-1 | ... | stage-N | key by id -> records (per-record latency) -> metrics sink
 * </pre>
 * The spout (chained to the source, one task) hands records on; each {@code |} is the technique's exchange
 * ({@link Tails}); every stage has {@code stageParallelism} tasks, does its workload's {@link RecordWork} and spends
 * {@code stageCostUs} per record as {@code stageCostModel} says ({@link StageCost}). The last exchange is by record
 * id, so every copy of a record ends at one task, which keeps the first. The workloads: {@link ExclamationJob},
 * io.klink.workloads.ysb.YsbRecordsJob.
 */
public final class RecordPipeline {

    /** How long the records task remembers an id to drop later copies of it. */
    static final long DEDUP_HORIZON_MS = 60_000;
    /** Shared queue: records a task may have in its queue at once (beyond, async I/O back-pressures), and how
     *  long one may wait there before the job fails. */
    static final int ASYNC_CAPACITY = 10_000;
    static final long ASYNC_TIMEOUT_S = 120;

    private RecordPipeline() {}

    /**
     * Configuration as the harness writes it (JSON; see klinkctl/workloads/exclamation.py). {@code windowMs} is
     * every job config's key; this pipeline has no windows. {@code campaignsFile}: YSB's campaign table for its
     * join stage (ysb-records; empty otherwise). {@code stallEveryMs}, {@code stallLengthMs}: the stage tasks'
     * {@link Stalls} (0: none).
     */
    public record Config(long windowMs, int stages, String stageCostModel, long stageCostUs,
                         Map<String, Double> stageSpeeds, int stageParallelism,
                         long bufferTimeoutMs,
                         String tail,
                         String feedbackTopic, long balancePeriodMs, double balanceAlpha, double balanceThreshold,
                         double balanceUnit, long replayPeriodMs, double replicateFraction,
                         String campaignsFile, long stallEveryMs, long stallLengthMs) {

        public Config {
            if (stages < 1 || stageCostUs < 0 || stageParallelism < 1 || bufferTimeoutMs < 0
                    || !Tails.NAMES.contains(tail)) {
                throw new IllegalArgumentException("exclamation needs stages >= 1, stageCostUs >= 0, "
                        + "stageParallelism >= 1, bufferTimeoutMs >= 0 and tail one of " + Tails.NAMES);
            }
            // the parameters: a compact constructor assigns the fields last
            new ServiceTime(StageCost.named(stageCostModel), stageCostUs, stageSpeeds,
                    new Stalls(stallEveryMs, stallLengthMs));
        }

        StageCost stageCost() {
            return StageCost.named(stageCostModel);
        }

        /** Each stage's service time (--stage-speeds: slower TaskManagers, by resource id; --stall-every). */
        ServiceTime service() {
            return new ServiceTime(stageCost(), stageCostUs, stageSpeeds, new Stalls(stallEveryMs, stallLengthMs));
        }

        boolean balanced() {
            return Tails.LATENCY_BALANCE.equals(tail);
        }

        /** The spout's replay settings for {@code query}, null when the technique does not replay. */
        Replayer.Settings replay(String bootstrap, String query, long seed) {
            return switch (tail) {
                case Tails.REPLAY -> new Replayer.Settings(Replayer.Mode.ADAPTIVE, bootstrap, feedbackTopic, query,
                        replayPeriodMs, 0, seed);
                case Tails.REPLICATE -> new Replayer.Settings(Replayer.Mode.REPLICATE, bootstrap, feedbackTopic, query,
                        replayPeriodMs, replicateFraction, seed);
                default -> null;
            };
        }
    }

    /** What a workload gives the pipeline: its records, and each stage's work under {@code config}. */
    public interface Workload {
        DeserializationSchema<TailRecord> records();

        List<RecordWork> stages(Config config) throws IOException;
    }

    public static void build(StreamExecutionEnvironment env, String configJson, Workload workload) throws IOException {
        QueryPipelines.Run run = QueryPipelines.start(env, configJson, Config.class);
        Config config = QueryPipelines.readConfig(configJson, Config.class);
        env.setBufferTimeout(config.bufferTimeoutMs());
        configureJob(env, config.tail());
        Stage.Balancing balancing = config.balanced() ? new Stage.Balancing(run.bootstrap(), config.feedbackTopic(),
                config.balancePeriodMs(), config.balanceAlpha(), config.balanceThreshold(), config.balanceUnit()) : null;
        List<RecordWork> stages = workload.stages(config);
        for (Query query : run.queries()) {
            addQuery(env, run, config, balancing, query, workload.records(), stages);
        }
    }

    /**
     * Turns on Flink's adaptive partitioner for this job's rebalance exchanges when {@code tail} asks for it.
     * StreamTask reads the switch from the job configuration, so one stack runs every exchange side by side.
     */
    static void configureJob(StreamExecutionEnvironment env, String tail) {
        if (Tails.ADAPTIVE.equals(tail)) {
            env.configure(new Configuration().set(NettyShuffleEnvironmentOptions.ADAPTIVE_PARTITIONER_ENABLED, true));
        }
    }

    private static void addQuery(StreamExecutionEnvironment env, QueryPipelines.Run run, Config config,
                                 Stage.Balancing balancing, Query query, DeserializationSchema<TailRecord> source,
                                 List<RecordWork> stages) {
        String q = query.id() + "/";
        DataStream<TailRecord> records = env.fromSource(QueryPipelines.kafkaSource(run, query.id(), query.topic(),
                        source), WatermarkStrategy.noWatermarks(), q + "source")
                .flatMap(new Stage(ServiceTime.NONE, RecordWork.PASS, balancing, null, balancedName(config, q, 1),
                        config.stageParallelism()), TailRecordDeserializer.RECORDS)
                .name(q + "spout");
        Replayer.Settings replay = config.replay(run.bootstrap(), query.id(), query.id().hashCode());
        if (replay != null) {
            records = records.transform(q + "replay", TailRecordDeserializer.RECORDS, new Replayer(replay));
        }
        for (int k = 1; k <= stages.size(); k++) {
            String next = k < stages.size() ? balancedName(config, q, k + 1) : null;
            RecordWork work = stages.get(k - 1);
            records = stage(exchange(records, config), config, run, q + "stage-" + k, work,
                    new Stage(config.service(), work, balancing, balancedName(config, q, k),
                            next, config.stageParallelism()));
        }
        records.keyBy(r -> r.id, Types.LONG)
                .transform(q + "records", Types.STRING, replay != null && replay.mode() == Replayer.Mode.ADAPTIVE
                        ? new RecordLatencySink(query.id(), DEDUP_HORIZON_MS, run.bootstrap(), config.feedbackTopic())
                        : new RecordLatencySink(query.id(), DEDUP_HORIZON_MS))
                .setParallelism(config.stageParallelism())
                .sinkTo(QueryPipelines.metricsSink(run)).name(q + "metrics-sink").setParallelism(config.stageParallelism());
    }

    /** One stage: a flat map, or with the shared-queue technique the same work behind async I/O and a shared queue. */
    private static DataStream<TailRecord> stage(DataStream<TailRecord> in, Config config, QueryPipelines.Run run,
                                                String name, RecordWork work, Stage stage) {
        SingleOutputStreamOperator<TailRecord> out = Tails.SHARED_QUEUE.equals(config.tail())
                ? AsyncDataStream.unorderedWait(in, new SharedQueue(config.service(), work,
                        run.runId() + "/" + name),
                        ASYNC_TIMEOUT_S, TimeUnit.SECONDS, ASYNC_CAPACITY)
                : in.flatMap(stage, TailRecordDeserializer.RECORDS);
        return out.name(name).setParallelism(config.stageParallelism());
    }

    /** Stage k's name on the feedback channel when the exchange into it is balanced, else null. */
    private static String balancedName(Config config, String q, int k) {
        return config.balanced() ? q + "stage-" + k : null;
    }

    private static DataStream<TailRecord> exchange(DataStream<TailRecord> in, Config config) {
        return switch (config.tail()) {
            case Tails.RESCALE -> in.rescale();
            case Tails.LATENCY_BALANCE -> in.partitionCustom(new Routes(), r -> r.route);
            default -> in.rebalance();
        };
    }
}
