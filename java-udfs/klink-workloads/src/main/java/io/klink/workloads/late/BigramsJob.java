package io.klink.workloads.late;

import java.io.IOException;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The Aion paper's {@code bigrams} (seed aion-late-events-esteves.txt §5): every bigram's count per key over
 * {@link LateWindowJob}'s windows ({@link Bigrams}); a post is an event's payload,
 * {@code w<key>,<words>,<post>,event_time}.
 */
public final class BigramsJob {

    private BigramsJob() {}

    public static void build(StreamExecutionEnvironment env, String configJson) throws IOException {
        LateWindowJob.build(env, configJson, new Bigrams());
    }
}
