package io.klink.workloads.kmeans;

import io.klink.metrics.Envelope;
import io.klink.metrics.InstrumentedWindowOperator;
import io.klink.sampler.ValueModel;
import io.klink.workloads.common.CsvLineDeserializer;
import io.klink.workloads.common.QueryPipelines;
import io.klink.workloads.common.QueryPipelines.Query;
import java.io.IOException;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * kMeans queries: points of drifting 2-D clusters (klink-generator {@code --workload kmeans}), per query
 * <pre>
 *   Kafka source -> markers -> parse -> filter(in the plane) [-> sampler]
 *     | window(k-means of the window's points) -> output -> metrics sink
 * </pre>
 * One window instance per query (every point has the same key): the window is the expensive operator.
 */
public final class KmeansJob {

    /** Points outside [-PLANE, PLANE]² are outliers and dropped. */
    public static final double PLANE = 100;

    private KmeansJob() {}

    /** Configuration as the harness writes it (JSON); see klinkctl/workloads/kmeans.py. */
    public record Config(long windowMs, int k, int iterations) {}

    public static void build(StreamExecutionEnvironment env, String configJson) throws IOException {
        QueryPipelines.Run run = QueryPipelines.start(env, configJson, Config.class);
        Config config = QueryPipelines.readConfig(configJson, Config.class);
        for (Query query : run.queries()) {
            String q = query.id() + "/";
            DataStream<Envelope> points = QueryPipelines.source(env, run, query.id(), query.topic(),
                            new CsvLineDeserializer("kMeans point"))
                    .map(new Parse(), QueryPipelines.ENVELOPES).name(q + "parse")
                    .filter(new InPlane()).name(q + "filter");
            long size = config.windowMs(), offset = query.windowOffsetMs();
            int k = config.k(), iterations = config.iterations();
            DataStream<Envelope> sampled = QueryPipelines.sampled(points, run, query.id(), size, size, offset,
                    ValueModel.centroids(k));
            QueryPipelines.windowToMetrics(sampled, run, query.id(),
                    new InstrumentedWindowOperator(() -> new KMeansWindows(size, offset, k, iterations)));
        }
    }

    /** {@code x,y,event_time} -> fields {x, y}; a malformed line keeps {@code fields == null} (then dropped). */
    public static final class Parse implements MapFunction<Envelope, Envelope> {
        @Override
        public Envelope map(Envelope e) {
            if (e.isData()) {
                String[] c = e.key.split(",", -1);
                e.key = "points";
                try {
                    e.fields = c.length == 3 ? new double[] {Double.parseDouble(c[0]), Double.parseDouble(c[1])} : null;
                } catch (NumberFormatException ex) {
                    e.fields = null;
                }
            }
            return e;
        }
    }

    /** Drops malformed points and outliers outside the plane; instrumentation envelopes pass. */
    public static final class InPlane implements FilterFunction<Envelope> {
        @Override
        public boolean filter(Envelope e) {
            return !e.isData() || (e.fields != null && Math.abs(e.fields[0]) <= PLANE && Math.abs(e.fields[1]) <= PLANE);
        }
    }
}
