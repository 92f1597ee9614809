package io.klink.workloads.common;

import io.klink.metrics.Envelope;
import java.io.IOException;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/**
 * Reads Kafka record values that hold one event per line: klink-generator packs the events a topic gets
 * in one send burst into one record (its {@code PackingSink}), and a record of one event is one line. Each
 * line becomes its own envelope, in order, so the rest of the job never sees the packing.
 */
public abstract class LineEventsDeserializer implements DeserializationSchema<Envelope> {

    /** Parses one event: {@code length} bytes of {@code bytes} from {@code offset}, without the newline. */
    protected abstract Envelope parse(byte[] bytes, int offset, int length) throws IOException;

    @Override
    public void deserialize(byte[] message, Collector<Envelope> out) throws IOException {
        int start = 0;
        for (int i = 0; i <= message.length; i++) {
            if (i == message.length || message[i] == '\n') {
                if (i > start) {
                    out.collect(parse(message, start, i - start));
                }
                start = i + 1;
            }
        }
    }

    /** A record of exactly one event (tests, and callers that know it is not packed). */
    @Override
    public Envelope deserialize(byte[] message) throws IOException {
        return parse(message, 0, message.length);
    }

    @Override
    public boolean isEndOfStream(Envelope nextElement) {
        return false;
    }

    @Override
    public TypeInformation<Envelope> getProducedType() {
        return QueryPipelines.ENVELOPES;
    }
}
