package io.klink.workloads.late;

import java.io.IOException;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The Aion paper's {@code average} (seed aion-late-events-esteves.txt §5): the per-key average of a stream of
 * random integers ({@code w<key>,<value>[,<payload>],event_time}) over {@link LateWindowJob}'s windows.
 */
public final class AverageJob {

    private AverageJob() {}

    public static void build(StreamExecutionEnvironment env, String configJson) throws IOException {
        LateWindowJob.build(env, configJson, new LateWindowFunction.Average());
    }
}
