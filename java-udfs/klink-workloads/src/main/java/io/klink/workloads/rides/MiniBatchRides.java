package io.klink.workloads.rides;

import io.klink.metrics.ChangelogRecorder;
import io.klink.metrics.Envelope;
import io.klink.workloads.common.QueryPipelines;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * The {@code minibatch} baseline (issue 24 item 3): the ride query as Flink's own Table API mini-batch
 * aggregation, which plans the pre-shuffle combiner itself. Per query:
 * <pre>
 *   Kafka source -> markers | rebalance -> parse (P) -> rows (P) -> [Table: Calc -> MiniBatchAssigner ->
 *     LocalGroupAggregate (P)] | hash(region, window_end) -> [GlobalGroupAggregate (1)] -> results -> output -> sink
 *                        parse (P) -> watermarks (no records) ----------------------------------------^
 * </pre>
 * The SQL is an unbounded {@code GROUP BY region, window_end}, window_end = the end of the trip's tumbling
 * event-time window computed in the query: Flink's mini-batch knobs ({@code table.exec.mini-batch.*}) set the
 * interval of such aggregations only; a window TVF aggregation batches by watermark whatever they say (Flink's
 * tuning page, "MiniBatch Aggregation"). The Calc, the assigner and the local aggregate take their input's
 * parallelism (P, chained to the parse); the global one the job's default (1, as the other combiners' window),
 * with placement split in the windows' slot-sharing group.
 * The result is a changelog of per-region updates at every mini-batch, recorded by {@link ChangelogRecorder}
 * with each window's sweeping watermark, which reaches the output by a branch of its own: Flink's processing-time
 * mini-batch assigner drops the event-time watermarks (docs/combiner.md: how its window latency is defined).
 * Blocking markers and watermark probes cannot cross SQL, so the query has no marker and no watermark rows.
 */
public final class MiniBatchRides {

    /** Plan nodes that must all be in the query's optimized plan: Flink's two-phase mini-batch aggregation. */
    static final List<String> TWO_PHASE_NODES = List.of("MiniBatchAssigner", "LocalGroupAggregate",
            "GlobalGroupAggregate");

    private MiniBatchRides() {}

    /**
     * Flink's settings of the query's aggregate: mini-batches every {@code intervalMs} of processing time or
     * {@code maxRecords} input rows ({@code 0}: the interval only; Flink needs a positive size), two phases.
     */
    static Map<String, String> tableOptions(long intervalMs, long maxRecords) {
        if (intervalMs <= 0 || maxRecords < 0) {
            throw new IllegalArgumentException("the mini-batch interval must be positive and its size not negative, got "
                    + intervalMs + " ms and " + maxRecords + " records");
        }
        Map<String, String> options = new LinkedHashMap<>();
        options.put("table.exec.mini-batch.enabled", "true");
        options.put("table.exec.mini-batch.allow-latency", intervalMs + " ms");
        options.put("table.exec.mini-batch.size", Long.toString(maxRecords > 0 ? maxRecords : Long.MAX_VALUE));
        options.put("table.optimizer.agg-phase-strategy", "TWO_PHASE");
        return options;
    }

    public static StreamTableEnvironment tables(StreamExecutionEnvironment env, long intervalMs, long maxRecords) {
        StreamTableEnvironment tables = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tableOptions(intervalMs, maxRecords).forEach(tables.getConfig()::set);
        return tables;
    }

    /** The trips' columns as the query reads them. */
    static TypeInformation<Row> rowType(RideAggregate aggregate) {
        return aggregate == RideAggregate.PASSENGERS
                ? Types.ROW_NAMED(new String[] {"region", "event_time", "passengers", "fare"}, Types.STRING,
                        Types.LONG, Types.DOUBLE, Types.DOUBLE)
                : Types.ROW_NAMED(new String[] {"region", "event_time", "driver"}, Types.STRING, Types.LONG,
                        Types.LONG);
    }

    /** The query over view {@code trips}: per region and window, trips and the aggregate (RideAggregate's). */
    static String sql(RideAggregate aggregate, String trips, long sizeMs, long offsetMs) {
        String aggregates = aggregate == RideAggregate.PASSENGERS
                ? "SUM(passengers) AS aggregate, MAX(fare) AS max_fare"
                : "CAST(COUNT(DISTINCT driver) AS DOUBLE) AS aggregate, CAST(NULL AS DOUBLE) AS max_fare";
        long offset = Math.floorMod(offsetMs, sizeMs);  // TumblingWindows.windowEnd
        return "SELECT region, window_end, COUNT(*) AS trips, " + aggregates + " FROM (SELECT *, event_time - MOD("
                + "event_time - " + offset + ", " + sizeMs + ") + " + sizeMs + " AS window_end FROM " + trips
                + ") GROUP BY region, window_end";
    }

    /** Refuses a plan without Flink's two-phase mini-batch aggregation (the baseline would not be what it says). */
    static void requireTwoPhase(String plan) {
        for (String node : TWO_PHASE_NODES) {
            if (!plan.contains(node)) {
                throw new IllegalStateException("Flink planned the minibatch query without " + node + ": " + plan);
            }
        }
    }

    static void addQuery(StreamTableEnvironment tables, DataStream<Envelope> trips, QueryPipelines.Run run,
                         RideAggregate aggregate, long windowMs, QueryPipelines.Query query) {
        String q = query.id() + "/";
        DataStream<Row> rows = trips.flatMap(new ToRow(aggregate), rowType(aggregate)).name(q + "rows")
                .setParallelism(trips.getParallelism());
        String view = "trips_" + query.id();
        tables.createTemporaryView(view, tables.fromDataStream(rows));
        Table result = tables.sqlQuery(sql(aggregate, view, windowMs, query.windowOffsetMs()));
        requireTwoPhase(result.explain());
        DataStream<Row> changelog = tables.toChangelogStream(result);
        boolean split = QueryPipelines.SPLIT.equals(run.placement());
        nameAndPlace(changelog.getTransformation(), q, split ? QueryPipelines.WINDOWS_GROUP : null);
        DataStream<Envelope> watermarks = trips.filter(new NoRecords()).name(q + "watermarks")
                .setParallelism(trips.getParallelism());
        SingleOutputStreamOperator<String> output = changelog.flatMap(new ToResult(aggregate), QueryPipelines.ENVELOPES)
                .name(q + "results")
                .connect(watermarks)
                .transform(q + "output", Types.STRING, new ChangelogRecorder(query.id(), run.recordResults()))
                .setParallelism(1);
        if (split) {  // two inputs from two groups: it would not inherit the global aggregate's
            output.slotSharingGroup(QueryPipelines.WINDOWS_GROUP);
        }
        output.sinkTo(QueryPipelines.metricsSink(run)).name(q + "metrics-sink");
    }

    /**
     * Prefixes the planner's operators with the query's id, as every task of a query is named (DESIGN.md §4), and
     * with {@code shuffledGroup} puts those behind the shuffle (the global aggregate and what follows it) in that
     * slot-sharing group: placement split, as {@link QueryPipelines#windowToMetrics} places the other combiners'
     * window. The walk stops at the query's own operators (named already).
     */
    static void nameAndPlace(Transformation<?> last, String prefix, String shuffledGroup) {
        Deque<Map.Entry<Transformation<?>, Boolean>> open = new ArrayDeque<>(List.of(Map.entry(last, true)));
        while (!open.isEmpty()) {
            Transformation<?> t = open.peek().getKey();
            boolean behindShuffle = open.pop().getValue();
            if (t.getName().startsWith(prefix)) {
                continue;
            }
            t.setName(prefix + t.getName());
            if (behindShuffle && shuffledGroup != null) {
                t.setSlotSharingGroup(shuffledGroup);
            }
            boolean inputsBehind = behindShuffle && !(t instanceof PartitionTransformation);
            t.getInputs().forEach(input -> open.push(Map.entry(input, inputsBehind)));
        }
    }

    /** Passes the parse stage's event-time watermarks, no record, to the output operator (the SWM's way there). */
    public static final class NoRecords implements FilterFunction<Envelope> {
        @Override
        public boolean filter(Envelope e) {
            return false;
        }
    }

    /** A parsed trip as the query's row; markers, probes and progress records cannot cross SQL and end here. */
    public static final class ToRow implements FlatMapFunction<Envelope, Row> {
        private final RideAggregate aggregate;

        public ToRow(RideAggregate aggregate) {
            this.aggregate = aggregate;
        }

        @Override
        public void flatMap(Envelope e, Collector<Row> out) {
            if (!e.isData()) {
                return;
            }
            out.collect(aggregate == RideAggregate.PASSENGERS ? Row.of(e.key, e.timestamp, e.fields[0], e.fields[1])
                    : Row.of(e.key, e.timestamp, (long) e.fields[0]));
        }
    }

    /** A region's new result of a window (insert or update after) as its RESULT; update-befores are dropped. */
    public static final class ToResult implements FlatMapFunction<Row, Envelope> {
        private final RideAggregate aggregate;

        public ToResult(RideAggregate aggregate) {
            this.aggregate = aggregate;
        }

        @Override
        public void flatMap(Row row, Collector<Envelope> out) {
            if (row.getKind() != RowKind.INSERT && row.getKind() != RowKind.UPDATE_AFTER) {
                return;
            }
            Double maxFare = row.getFieldAs("max_fare");
            out.collect(aggregate.result(row.getFieldAs("region"), row.<Long>getFieldAs("window_end"),
                    row.<Long>getFieldAs("trips"), row.<Double>getFieldAs("aggregate"),
                    maxFare == null ? Double.NaN : maxFare));
        }
    }
}
