package io.klink.generator;

import java.io.IOException;
import java.io.Writer;

/**
 * The delays events were actually sent with (send time − event time, whole ms): the requested model
 * plus whatever lag the generator had. klinkctl tests them against the requested model. One array
 * increment per event; delays beyond {@link #MAX_MS} are counted in the last bucket.
 */
public final class DelayHistogram {

    public static final int MAX_MS = 600_000;

    private final long[] counts = new long[MAX_MS + 1];

    public void add(long delayMs) {
        counts[(int) Math.max(0, Math.min(MAX_MS, delayMs))]++;
    }

    public long count(int delayMs) {
        return counts[delayMs];
    }

    /** {@code delay_ms,events}, one row per delay that occurred, ascending. */
    public void writeCsv(Writer out) throws IOException {
        out.write("delay_ms,events\n");
        for (int ms = 0; ms <= MAX_MS; ms++) {
            if (counts[ms] > 0) {
                out.write(ms + "," + counts[ms] + "\n");
            }
        }
    }
}
