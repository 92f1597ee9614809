package io.klink.workloads.nyt;

import io.klink.metrics.Envelope;
import io.klink.metrics.InstrumentedWindowOperator;
import io.klink.metrics.SlidingAggregateWindows;
import io.klink.sampler.ValueModel;
import io.klink.workloads.common.CsvLineDeserializer;
import io.klink.workloads.common.QueryPipelines;
import io.klink.workloads.common.QueryPipelines.Query;
import java.io.IOException;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Builds Q independent NYT (DEBS 2015 taxi trips) query pipelines; called from jobs/nyt.py. Per query:
 * <pre>
 *   Kafka source -> markers -> parse -> validate -> cell -> derive (speed) [-> sampler] |  window(sliding: trips and
 *   average fare, distance, speed per cell) -> output -> metrics sink
 * </pre>
 */
public final class NytJob {

    private NytJob() {}

    /**
     * What a sampler's error target holds for (Eq. 4.4): the window's average fare per trip, the thesis' NYT query
     * (a mean over each sliding window). The per-cell results are estimates too, but with ≈ 1 300 mostly one-trip
     * cells per window, a per-cell target would ask for nearly every event (docs/sampling.md).
     */
    public static final ValueModel VALUE = ValueModel.mean(NytOperators.A_FARE);

    /** Configuration as the harness writes it (JSON); see klinkctl/workloads/nyt.py. */
    public record Config(long windowMs, long slideMs) {}

    public static void build(StreamExecutionEnvironment env, String configJson) throws IOException {
        QueryPipelines.Run run = QueryPipelines.start(env, configJson, Config.class);
        Config config = QueryPipelines.readConfig(configJson, Config.class);
        for (Query query : run.queries()) {
            addQuery(env, run, config, query);
        }
    }

    static void addQuery(StreamExecutionEnvironment env, QueryPipelines.Run run, Config config, Query query) {
        String q = query.id() + "/";
        DataStream<Envelope> cells = QueryPipelines.source(env, run, query.id(), query.topic(),
                        new CsvLineDeserializer("NYT trip"))
                .map(new NytOperators.Parse(), QueryPipelines.ENVELOPES).name(q + "parse")
                .filter(new NytOperators.Validate()).name(q + "validate")
                .map(new NytOperators.Cell(), QueryPipelines.ENVELOPES).name(q + "cell")
                .map(new NytOperators.Derive(), QueryPipelines.ENVELOPES).name(q + "derive");
        long size = config.windowMs(), slide = config.slideMs(), offset = query.windowOffsetMs();
        DataStream<Envelope> sampled = QueryPipelines.sampled(cells, run, query.id(), size, slide, offset, VALUE);
        QueryPipelines.windowToMetrics(sampled, run, query.id(), new InstrumentedWindowOperator(
                () -> new SlidingAggregateWindows(size, slide, offset, NytOperators.AVERAGED)));
    }
}
