package io.klink.workloads.late;

import io.klink.metrics.Envelope;
import io.klink.workloads.common.CsvLineDeserializer;
import io.klink.workloads.common.QueryPipelines;
import io.klink.workloads.common.QueryPipelines.Query;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.util.OutputTag;

/**
 * The Aion paper's micro-benchmarks and its LRB's segment statistics (seed aion-late-events-esteves.txt §5:
 * {@link AverageJob}, {@link BigramsJob}, {@link LrbSegmentsJob}): one {@link LateWindowFunction} per key over tumbling event-time windows that keep accepting late events for
 * {@code allowedLatenessMs}. Each workload names its parse (the line to key, value and payload), by default
 * {@link Parse}: {@code w<key>,<value>[,<payload>],event_time}. Per query:
 * <pre>
 *   Kafka source -> markers -> parse -+-> (DATA) by key -> window (1) --+-> firings (1) -> output -> sink
 *                                     +-> (markers, probes) ------------+
 * </pre>
 * {@code lateState}: flink-heap / flink-rocksdb / flink-forst = Flink's window operator with allowedLateness on
 * that state backend (the baselines); aion = {@link AionWindowOperator}, m-buckets in memory and p-buckets on each
 * TaskManager's disk, under its temp dirs in a directory named after the run id (§3.1–3.3).
 */
public final class LateWindowJob {

    /** A late-state choice: the Flink state backend (state.backend.type) and the class it needs in the cluster. */
    public record LateState(String name, String backend, String backendClass) {}

    /** Every {@code --late-state} (klink-catalog publishes them; klinkctl refuses one whose class Flink lacks). */
    public static final List<LateState> LATE_STATES = List.of(
            new LateState("flink-heap", "hashmap", "org.apache.flink.runtime.state.hashmap.HashMapStateBackend"),
            new LateState("flink-rocksdb", "rocksdb", "org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend"),
            new LateState("flink-forst", "forst", "org.apache.flink.state.forst.ForStStateBackend"),
            new LateState("aion", "hashmap", "org.apache.flink.runtime.state.hashmap.HashMapStateBackend"));
    private static final OutputTag<Envelope> DROPPED = new OutputTag<>("dropped-late", QueryPipelines.ENVELOPES);

    private LateWindowJob() {}

    /** Configuration as the harness writes it (JSON), the same for every late-event workload; see
     *  klinkctl/workloads/late_windows.py. */
    public record Config(long windowMs, String lateState, long allowedLatenessMs, int mBucketEvents, double rhoMin,
                         String lateTrigger, double stalenessBound, int lateExecutions, double cleanupCoverage,
                         boolean prestaging, long destageIdleMs, double destageScarce, double destageVeryScarce,
                         String destageOrder) {}

    /** The Flink state backend (state.backend.type) of a late state (aion keeps its windows itself). */
    static String stateBackend(String lateState) {
        return LATE_STATES.stream().filter(s -> s.name().equals(lateState)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown late state '" + lateState + "'; valid: "
                        + LATE_STATES.stream().map(LateState::name).toList()))
                .backend();
    }

    /** Adds every query of the run, each computing {@code function} per key and window of {@link Parse}'s events. */
    public static void build(StreamExecutionEnvironment env, String configJson, LateWindowFunction function)
            throws IOException {
        build(env, configJson, new Parse(), function);
    }

    /**
     * Adds every query of the run: {@code parse} turns each DATA line into its key, {@code fields[0]} (the
     * {@link LateEvent}'s value) and payload (a null key drops it), and {@code function} runs per key and window.
     */
    public static void build(StreamExecutionEnvironment env, String configJson, MapFunction<Envelope, Envelope> parse,
                             LateWindowFunction function) throws IOException {
        QueryPipelines.Run run = QueryPipelines.start(env, configJson, Config.class);
        Config config = QueryPipelines.readConfig(configJson, Config.class);
        Configuration backend = new Configuration();
        backend.set(StateBackendOptions.STATE_BACKEND, stateBackend(config.lateState()));
        env.configure(backend);
        AionWindows.Settings aion = null;
        if (config.lateState().equals("aion")) {  // refuse bad settings when the job is built, not in a task
            aion = new AionWindows.Settings(config.windowMs(), 0, config.allowedLatenessMs(), config.mBucketEvents(),
                    config.rhoMin(), config.lateTrigger(), config.stalenessBound(), config.cleanupCoverage())
                    .executing(config.lateExecutions())
                    .prestagingAhead(config.prestaging() ? run.watermarkIntervalMs() : 0)  // checked every tick
                    .destaging(new DestagePolicies(config.destageIdleMs(), config.destageScarce(),
                            config.destageVeryScarce(), config.destageOrder()))
                    .computing(function);
        }
        for (Query query : run.queries()) {
            addQuery(env, run, config, aion, parse, function, query);
        }
    }

    static void addQuery(StreamExecutionEnvironment env, QueryPipelines.Run run, Config config,
                         AionWindows.Settings aion, MapFunction<Envelope, Envelope> parse, LateWindowFunction function,
                         Query query) {
        String q = query.id() + "/";
        long size = config.windowMs(), offset = query.windowOffsetMs();
        DataStream<Envelope> parsed = QueryPipelines.source(env, run, query.id(), query.topic(),
                        new CsvLineDeserializer("late-window event"))
                .map(parse, QueryPipelines.ENVELOPES).name(q + "parse");
        DataStream<Envelope> data = parsed.filter(e -> e.isData() && e.key != null).name(q + "data");
        DataStream<Envelope> instrumentation = parsed.filter(e -> !e.isData()).name(q + "instrumentation");
        DataStream<Envelope> windowed;
        if (aion != null) {
            windowed = data.keyBy(e -> e.key, Types.STRING)
                    .transform(q + "window", QueryPipelines.ENVELOPES, new AionWindowOperator(aion.at(offset),
                            run.runId(), query.id(), run.watermarkIntervalMs()))
                    .setParallelism(1);
        } else {
            SingleOutputStreamOperator<Envelope> results = data.keyBy(e -> e.key, Types.STRING)
                    .window(TumblingEventTimeWindows.of(Duration.ofMillis(size), Duration.ofMillis(offset)))
                    .allowedLateness(Duration.ofMillis(config.allowedLatenessMs()))
                    .trigger(new FlinkLateWindow.CountingTrigger())
                    .sideOutputLateData(DROPPED)
                    .process(new FlinkLateWindow.Apply(function), QueryPipelines.ENVELOPES)
                    .name(q + "window").setParallelism(1);
            windowed = results.union(results.getSideOutput(DROPPED));
        }
        windowed.union(instrumentation)
                .transform(q + "firings", QueryPipelines.ENVELOPES, new ResultFirings(size, offset))
                .setParallelism(1)
                .transform(q + "output", Types.STRING, new io.klink.metrics.LatencyRecorder(query.id(), true))
                .setParallelism(1)
                .sinkTo(QueryPipelines.metricsSink(run)).name(q + "metrics-sink").setParallelism(1);
    }

    /** {@code w<key>,<value>,event_time} or {@code w<key>,<value>,<payload>,event_time} -> key, fields[0] = value,
     *  payload; malformed -> key null (dropped next). */
    public static final class Parse implements MapFunction<Envelope, Envelope> {
        @Override
        public Envelope map(Envelope e) {
            if (e.isData()) {
                String[] c = e.key.split(",", -1);
                e.key = null;
                try {
                    if ((c.length == 3 || c.length == 4) && c[0].startsWith("w")) {
                        e.fields = new double[] {Double.parseDouble(c[1])};
                        e.payload = c.length == 4 ? c[2] : null;
                        e.key = c[0];
                    }
                } catch (NumberFormatException ex) {
                    e.fields = null;
                }
            }
            return e;
        }
    }
}
