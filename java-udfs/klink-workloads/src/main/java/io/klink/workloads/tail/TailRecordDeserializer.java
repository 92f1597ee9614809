package io.klink.workloads.tail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/**
 * Reads klink-generator's {@code --workload exclamation} records: one event per line, {@code <id>,<word>,<event
 * time ms>}, several lines per Kafka record when the generator packs a send burst. The generator's progress
 * records ({@code #progress,...}) carry no record and are skipped: this pipeline has no event-time windows.
 */
public class TailRecordDeserializer implements DeserializationSchema<TailRecord> {

    public static final TypeInformation<TailRecord> RECORDS = TypeInformation.of(TailRecord.class);

    @Override
    public void deserialize(byte[] message, Collector<TailRecord> out) throws IOException {
        int start = 0;
        for (int i = 0; i <= message.length; i++) {
            if (i == message.length || message[i] == '\n') {
                if (i > start && message[start] != '#') {
                    out.collect(parseLine(new String(message, start, i - start, StandardCharsets.US_ASCII)));
                }
                start = i + 1;
            }
        }
    }

    @Override
    public TailRecord deserialize(byte[] message) throws IOException {
        return parseLine(new String(message, StandardCharsets.US_ASCII));
    }

    /** One event line's record (a workload reading other events overrides it). */
    protected TailRecord parseLine(String line) throws IOException {
        return parse(line);
    }

    static TailRecord parse(String line) throws IOException {
        int first = line.indexOf(','), last = line.lastIndexOf(',');
        if (first <= 0 || last <= first) {
            throw new IOException("an exclamation record must be <id>,<word>,<event time>, got: " + line);
        }
        try {
            return new TailRecord(Long.parseLong(line, 0, first, 10), Long.parseLong(line.substring(last + 1).trim()),
                    line.substring(first + 1, last));
        } catch (NumberFormatException e) {
            throw new IOException("an exclamation record must be <id>,<word>,<event time>, got: " + line);
        }
    }

    @Override
    public boolean isEndOfStream(TailRecord next) {
        return false;
    }

    @Override
    public TypeInformation<TailRecord> getProducedType() {
        return RECORDS;
    }
}
