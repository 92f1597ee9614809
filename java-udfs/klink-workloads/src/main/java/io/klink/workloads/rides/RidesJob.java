package io.klink.workloads.rides;

import io.klink.metrics.Envelope;
import io.klink.metrics.InstrumentedWindowOperator;
import io.klink.workloads.common.CsvLineDeserializer;
import io.klink.workloads.common.QueryPipelines;
import io.klink.workloads.common.QueryPipelines.Query;
import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * The AdCom ride aggregation (seed adcom-edbt21.txt §4.1, Q1 over ride data): trips (klink-generator
 * {@code --workload rides}, Zipf-skewed regions) aggregated per region over tumbling event-time windows, with
 * or without a combiner before the shuffle. Per query:
 * <pre>
 *   Kafka source -> markers | rebalance -> parse (P) [-> combiner (P)] | by region -> window (1) -> output -> sink
 * </pre>
 * {@code combiner}: none (every trip is shuffled), adcom (λ from the PI controller, §3.2), local-global (the
 * same combiner with a fixed λ and record count: the two-phase aggregation baseline, §4.1); minibatch: Flink's
 * Table API mini-batch aggregation with that fixed interval and count ({@link MiniBatchRides}, a changelog of
 * updates instead of fired windows).
 */
public final class RidesJob {

    public static final List<String> COMBINERS = List.of("none", "adcom", "local-global", "minibatch");
    /** Flink's own two-phase mini-batch aggregation in the Table API ({@link MiniBatchRides}). */
    public static final String MINIBATCH = "minibatch";

    private RidesJob() {}

    /**
     * Configuration as the harness writes it (JSON); see klinkctl/workloads/rides.py. {@code controlUrl} and
     * {@code stackToken}: where the combiner's controller and instances reach klinkctl during the run.
     */
    public record Config(long windowMs, String aggregate, String combiner, int combinerParallelism,
                         long combinerIntervalMs, long combinerMaxRecords, double bandLow, double bandHigh, double kp,
                         double ki, long minIntervalMs, long maxIntervalMs, long controlPeriodMs, String controlUrl,
                         String stackToken) {}

    public static void build(StreamExecutionEnvironment env, String configJson) throws IOException {
        QueryPipelines.Run run = QueryPipelines.start(env, configJson, Config.class);
        Config config = QueryPipelines.readConfig(configJson, Config.class);
        if (!COMBINERS.contains(config.combiner())) {
            throw new IllegalArgumentException("unknown combiner '" + config.combiner() + "'; valid: " + COMBINERS);
        }
        RideAggregate aggregate = RideAggregate.of(config.aggregate());
        StreamTableEnvironment tables = config.combiner().equals(MINIBATCH)
                ? MiniBatchRides.tables(env, config.combinerIntervalMs(), config.combinerMaxRecords()) : null;
        for (Query query : run.queries()) {
            addQuery(env, tables, run, config, aggregate, query);
        }
    }

    static void addQuery(StreamExecutionEnvironment env, StreamTableEnvironment tables, QueryPipelines.Run run,
                         Config config, RideAggregate aggregate, Query query) {
        String q = query.id() + "/";
        int parallelism = config.combinerParallelism();
        DataStream<Envelope> trips = QueryPipelines.source(env, run, query.id(), query.topic(),
                        new CsvLineDeserializer("ride"))
                .rebalance()
                .map(new Parse(aggregate), QueryPipelines.ENVELOPES).name(q + "parse").setParallelism(parallelism)
                .filter(new Valid()).name(q + "valid").setParallelism(parallelism);
        if (tables != null) {
            MiniBatchRides.addQuery(tables, trips, run, aggregate, config.windowMs(), query);
            return;
        }
        if (!config.combiner().equals("none")) {
            trips = trips.transform(q + "combiner", QueryPipelines.ENVELOPES, new AdaptiveCombiner(settings(
                    config, aggregate, run.runId(), query))).setParallelism(parallelism);
        }
        DataStream<Envelope> byRegion = trips.partitionCustom(new ByRegion(), e -> e.key == null ? "" : e.key);
        long size = config.windowMs(), offset = query.windowOffsetMs();
        QueryPipelines.windowToMetrics(byRegion, run, query.id(),
                new InstrumentedWindowOperator(() -> new RideWindows(size, offset, aggregate)));
    }

    static AdaptiveCombiner.Settings settings(Config c, RideAggregate aggregate, String runId, Query query) {
        boolean adaptive = c.combiner().equals("adcom");
        if (adaptive) {  // refuse bad parameters when the job is built, not in a task
            new PiController.Params(c.bandLow(), c.bandHigh(), c.kp(), c.ki(), c.minIntervalMs(), c.maxIntervalMs());
        }
        return new AdaptiveCombiner.Settings(aggregate, c.windowMs(), query.windowOffsetMs(), c.combinerIntervalMs(),
                c.combinerMaxRecords(), adaptive, c.bandLow(), c.bandHigh(), c.kp(), c.ki(), c.minIntervalMs(),
                c.maxIntervalMs(), c.controlPeriodMs(), new CombinerChannel.Address(c.controlUrl(), c.stackToken(),
                runId), query.id());
    }

    /** {@code region,driver,passengers,fare,event_time} -> key region, a partial of one trip; malformed -> null. */
    public static final class Parse implements MapFunction<Envelope, Envelope> {
        private final RideAggregate aggregate;

        public Parse(RideAggregate aggregate) {
            this.aggregate = aggregate;
        }

        @Override
        public Envelope map(Envelope e) {
            if (e.isData()) {
                String[] c = e.key.split(",", -1);
                e.key = null;
                e.value = 1;
                try {
                    if (c.length == 5 && c[0].startsWith("r")) {
                        e.fields = aggregate.tripFields(Integer.parseInt(c[1]), Integer.parseInt(c[2]),
                                Double.parseDouble(c[3]));
                        e.key = c[0];
                    }
                } catch (NumberFormatException ex) {
                    e.fields = null;
                }
            }
            return e;
        }
    }

    /** Drops malformed trips; instrumentation passes. */
    public static final class Valid implements FilterFunction<Envelope> {
        @Override
        public boolean filter(Envelope e) {
            return !e.isData() || (e.key != null && e.fields != null);
        }
    }

    /** The shuffle by region (markers, probes: channel 0). */
    public static final class ByRegion implements Partitioner<String> {
        @Override
        public int partition(String key, int channels) {
            return Math.floorMod(key.hashCode(), channels);
        }
    }
}
