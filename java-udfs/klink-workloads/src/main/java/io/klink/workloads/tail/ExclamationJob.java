package io.klink.workloads.tail;

import java.io.IOException;
import java.util.Collections;
import java.util.List;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The seed's "exclamation" topology (tail-latency-storm-du-gupta.txt §5.1: a linear chain of operators connected
 * by shuffle grouping, each appending "!"), measured per record: a {@link RecordPipeline} of {@code stages}
 * exclamation stages over klink-generator's {@code id,word,event_time} records.
 */
public final class ExclamationJob implements RecordPipeline.Workload {

    public static void build(StreamExecutionEnvironment env, String configJson) throws IOException {
        RecordPipeline.build(env, configJson, new ExclamationJob());
    }

    @Override
    public DeserializationSchema<TailRecord> records() {
        return new TailRecordDeserializer();
    }

    @Override
    public List<RecordWork> stages(RecordPipeline.Config config) {
        return Collections.nCopies(config.stages(), RecordWork.EXCLAIM);
    }
}
