package io.klink.workloads.common;

import io.klink.metrics.Envelope;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * For CSV events whose last column is the event time (NYT trips, kMeans points): keeps the line as the key
 * and reads the event time only — parsing the rest is the query's own first operator.
 */
public final class CsvLineDeserializer implements DeserializationSchema<Envelope> {

    @Override
    public Envelope deserialize(byte[] message) throws IOException {
        String line = new String(message, StandardCharsets.US_ASCII);
        try {
            return Envelope.data(line, Long.parseLong(line.substring(line.lastIndexOf(',') + 1).trim()), 0);
        } catch (NumberFormatException e) {
            throw new IOException("CSV event lacks an event time in its last column: " + line);
        }
    }

    @Override
    public boolean isEndOfStream(Envelope nextElement) {
        return false;
    }

    @Override
    public TypeInformation<Envelope> getProducedType() {
        return TypeInformation.of(Envelope.class);
    }
}
