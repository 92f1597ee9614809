package io.klink.workloads.common;

import io.klink.metrics.Envelope;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A CSV record whose last column is the event time (ms, appended by klink-generator): keeps the line as the
 * key and reads the event time only, so the parse is its own (query-attributable) operator.
 */
public final class CsvLineDeserializer extends LineEventsDeserializer {

    private final String what;

    /** {@code what} names the records in errors, e.g. "NYT trip". */
    public CsvLineDeserializer(String what) {
        this.what = what;
    }

    @Override
    protected Envelope parse(byte[] bytes, int offset, int length) throws IOException {
        String line = new String(bytes, offset, length, StandardCharsets.US_ASCII);
        try {
            return Envelope.data(line, Long.parseLong(line.substring(line.lastIndexOf(',') + 1).trim()), 0);
        } catch (NumberFormatException e) {
            throw new IOException(what + " lacks an event time in its last column: " + line);
        }
    }
}
