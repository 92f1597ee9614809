package io.klink.generator;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The Aion paper's {@code average} micro-benchmark (seed aion-late-events-esteves.txt §5, "Workloads": the average
 * of a stream of random integers per window): one CSV line per event, {@code w<key>,<value>,event_time}, the key
 * one of {@link #KEYS} words drawn uniformly, the value a uniform integer in [0, {@link #MAX_VALUE}). Late
 * arrivals come from the delay model ({@code --delay lognormal:…}, the paper's log-normal lateness), not from here.
 *
 * <p>{@link #draw} takes one long, {@link #encode} derives key and value from it.
 */
public final class AverageEventCodec implements EventCodec {

    public static final int KEYS = 50;
    public static final int MAX_VALUE = 1000;

    @Override
    public byte[] encode(long packed, long eventTimeMs) {
        SplittableRandom r = new SplittableRandom(packed);
        int key = r.nextInt(KEYS);
        int value = r.nextInt(MAX_VALUE);
        return ("w" + key + "," + value + "," + eventTimeMs).getBytes(StandardCharsets.US_ASCII);
    }
}
