package io.klink.workloads.lrb;

import io.klink.metrics.Envelope;
import io.klink.metrics.InstrumentedWindowOperator;
import io.klink.metrics.SlidingAggregateWindows;
import io.klink.workloads.common.CsvLineDeserializer;
import io.klink.workloads.common.QueryPipelines;
import io.klink.workloads.common.QueryPipelines.Query;
import java.io.IOException;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Builds Q independent Linear Road (streaming variation) query pipelines; called from jobs/java_pipelines.py.
 * Per query:
 * <pre>
 *   Kafka source -> markers -> parse -+-> stats-window (sliding 5 s / 3 s: cars, average speed) -> stats-rows -+
 *                                     +-> accidents (4 stopped reports, 2+ cars at one position) ---------------+
 *                                     +-> crossings (car enters a segment) ------------------------------------+
 *                                                                                                              |
 *     toll-window (tumbling: joins the three, LR toll per crossing; the query's SWM latency) <- union <--------+
 *       -> output -> metrics sink
 * </pre>
 * The toll window is as long as the statistics slide, or a third of it in the stressed variant, aligned so
 * a statistics window ends where a toll window starts.
 */
public final class LrbJob {

    private LrbJob() {}

    /** Configuration as the harness writes it (JSON); see klinkctl/workloads/lrb.py. */
    public record Config(long windowMs, long slideMs, long tollWindowMs, long tollMinCars) {}

    public static void build(StreamExecutionEnvironment env, String configJson) throws IOException {
        QueryPipelines.Run run = QueryPipelines.start(env, configJson, Config.class);
        Config config = QueryPipelines.readConfig(configJson, Config.class);
        if (config.tollWindowMs() <= 0 || config.slideMs() % config.tollWindowMs() != 0) {
            throw new IllegalArgumentException("the toll window (" + config.tollWindowMs()
                    + " ms) must divide the statistics slide (" + config.slideMs() + " ms)");
        }
        for (Query query : run.queries()) {
            addQuery(env, run, config, query);
        }
    }

    static void addQuery(StreamExecutionEnvironment env, QueryPipelines.Run run, Config config, Query query) {
        String q = query.id() + "/";
        DataStream<Envelope> reports = QueryPipelines.source(env, run, query.id(), query.topic(),
                        new CsvLineDeserializer("LRB position report"))
                .flatMap(new LrbOperators.Parse(), QueryPipelines.ENVELOPES).name(q + "parse");
        long size = config.windowMs(), slide = config.slideMs(), offset = query.windowOffsetMs();
        DataStream<Envelope> stats = reports
                .transform(q + "stats-window", QueryPipelines.ENVELOPES, new InstrumentedWindowOperator(
                        () -> new SlidingAggregateWindows(size, slide, offset, 1)))  // averages F_SPEED
                .startNewChain()
                .flatMap(new LrbOperators.StatsRows(), QueryPipelines.ENVELOPES).name(q + "stats-rows");
        DataStream<Envelope> accidents = reports
                .flatMap(new LrbOperators.Accidents(), QueryPipelines.ENVELOPES).name(q + "accidents");
        DataStream<Envelope> crossings = reports
                .flatMap(new LrbOperators.Crossings(), QueryPipelines.ENVELOPES).name(q + "crossings");
        long tollSize = config.tollWindowMs(), tollOffset = offset + size, minCars = config.tollMinCars();
        QueryPipelines.windowToMetrics(stats.union(accidents, crossings), run, query.id(), "toll-window",
                new InstrumentedWindowOperator(() -> new TollWindows(tollSize, tollOffset, minCars)));
    }
}
