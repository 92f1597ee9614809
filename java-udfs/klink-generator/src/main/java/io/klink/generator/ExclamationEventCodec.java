package io.klink.generator;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The exclamation topology's records (tail-latency study), one CSV line per event: {@code id,word,event_time}.
 * The id is the event's 63 random bits, unique per topic with overwhelming probability (two of a million
 * events collide with probability about 1e-7), so the job can tell a replayed copy from a new record.
 */
public final class ExclamationEventCodec implements EventCodec {

    /** The words of Storm's TestWordSpout, which its exclamation topology reads. */
    static final String[] WORDS = {"nathan", "mike", "jackson", "golda", "bertels"};

    @Override
    public long draw(SplittableRandom rng) {
        return rng.nextLong() & Long.MAX_VALUE;
    }

    @Override
    public byte[] encode(long packed, long eventTimeMs) {
        return (packed + "," + WORDS[(int) (packed % WORDS.length)] + "," + eventTimeMs)
                .getBytes(StandardCharsets.US_ASCII);
    }
}
