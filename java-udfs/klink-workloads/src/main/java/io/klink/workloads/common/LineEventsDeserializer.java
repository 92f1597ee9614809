package io.klink.workloads.common;

import io.klink.metrics.Envelope;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/**
 * Reads Kafka record values that hold one event per line: klink-generator packs the events a topic gets
 * in one send burst into one record (its {@code PackingSink}), and a record of one event is one line. Each
 * line becomes its own envelope, in order, so the rest of the job never sees the packing.
 */
public abstract class LineEventsDeserializer implements DeserializationSchema<Envelope> {

    /** The generator's progress records after its last event (klink-generator Generator.PROGRESS_PREFIX). */
    static final byte[] PROGRESS_PREFIX = "#progress,".getBytes(StandardCharsets.US_ASCII);

    /** Parses one event: {@code length} bytes of {@code bytes} from {@code offset}, without the newline. */
    protected abstract Envelope parse(byte[] bytes, int offset, int length) throws IOException;

    @Override
    public void deserialize(byte[] message, Collector<Envelope> out) throws IOException {
        int start = 0;
        for (int i = 0; i <= message.length; i++) {
            if (i == message.length || message[i] == '\n') {
                if (i > start) {
                    out.collect(parseLine(message, start, i - start));
                }
                start = i + 1;
            }
        }
    }

    /** A record of exactly one event (tests, and callers that know it is not packed). */
    @Override
    public Envelope deserialize(byte[] message) throws IOException {
        return parseLine(message, 0, message.length);
    }

    private Envelope parseLine(byte[] bytes, int offset, int length) throws IOException {
        if (length > PROGRESS_PREFIX.length && bytes[offset] == '#'
                && Arrays.equals(bytes, offset, offset + PROGRESS_PREFIX.length, PROGRESS_PREFIX, 0,
                PROGRESS_PREFIX.length)) {
            String time = new String(bytes, offset + PROGRESS_PREFIX.length, length - PROGRESS_PREFIX.length,
                    StandardCharsets.US_ASCII);
            try {
                return Envelope.progress(Long.parseLong(time.trim()));
            } catch (NumberFormatException e) {
                throw new IOException("progress record without an event time: #progress," + time);
            }
        }
        return parse(bytes, offset, length);
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
