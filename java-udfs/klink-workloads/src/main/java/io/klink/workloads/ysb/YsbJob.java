package io.klink.workloads.ysb;

import io.klink.metrics.Envelope;
import io.klink.metrics.InstrumentedWindowOperator;
import io.klink.sampler.ValueModel;
import io.klink.workloads.common.QueryPipelines;
import io.klink.workloads.common.QueryPipelines.Query;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.type.TypeReference;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Builds Q independent YSB query pipelines on a Java StreamExecutionEnvironment; called from the PyFlink
 * program jobs/ysb.py, so the per-record hot path is Java only. Per query (operator names prefixed with
 * the query id, e.g. {@code q07/}, so every task maps to its query):
 * <pre>
 *   Kafka source -> markers -> filter(view) -> join(ad -> campaign) [-> sampler] | window(count per campaign) -> output -> metrics sink
 * </pre>
 * The window starts a new chain, so each query runs as two tasks: source side and window side.
 */
public final class YsbJob {

    private YsbJob() {}

    /** Configuration as the harness writes it (JSON); see klinkctl/workloads/ysb.py. */
    public record Config(String campaignsFile, long windowMs) {}

    public static void build(StreamExecutionEnvironment env, String configJson) throws IOException {
        QueryPipelines.Run run = QueryPipelines.start(env, configJson, Config.class);
        Config config = QueryPipelines.readConfig(configJson, Config.class);
        Map<String, List<String>> campaigns = campaigns(config.campaignsFile());
        for (Query query : run.queries()) {
            addQuery(env, run, config, query, campaigns);
        }
    }

    /** The campaign table klinkctl wrote: campaign id -> its ad ids. */
    static Map<String, List<String>> campaigns(String file) throws IOException {
        return QueryPipelines.JSON.readValue(Files.readString(Path.of(file)),
                new TypeReference<Map<String, List<String>>>() {});
    }

    static void addQuery(StreamExecutionEnvironment env, QueryPipelines.Run run, Config config, Query query,
                         Map<String, List<String>> campaigns) {
        String q = query.id() + "/";
        DataStream<Envelope> joined = QueryPipelines.source(env, run, query.id(), query.topic(), new YsbEventDeserializer())
                .filter(new ViewFilter()).name(q + "filter")
                .map(new CampaignJoin(campaigns), QueryPipelines.ENVELOPES).name(q + "join");
        DataStream<Envelope> sampled = QueryPipelines.sampled(joined, run, query.id(), config.windowMs(),
                config.windowMs(), query.windowOffsetMs(), ValueModel.keyCount());
        QueryPipelines.windowToMetrics(sampled, run, query.id(),
                new InstrumentedWindowOperator(config.windowMs(), query.windowOffsetMs()));
    }
}
