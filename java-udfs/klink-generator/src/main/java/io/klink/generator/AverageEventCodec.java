package io.klink.generator;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The Aion paper's {@code average} micro-benchmark (seed aion-late-events-esteves.txt §5, "Workloads": the average
 * of a stream of random integers per window): one CSV line per event, {@code w<key>,<value>,event_time}, the key
 * one of {@link #KEYS} words drawn uniformly, the value a uniform integer in [0, {@link #MAX_VALUE}). Late
 * arrivals come from the delay model ({@code --delay lognormal:…}, the paper's log-normal lateness), not from here.
 *
 * <p>With a payload ({@code --payload-bytes N}, the paper's events are 1.5–3.5 KB of JSON) the line is
 * {@code w<key>,<value>,<payload>,event_time}: N lowercase letters, a slice of one fixed random block at an offset
 * drawn per event (cheap to produce at tens of MB/s; what matters is its size in the window state).
 *
 * <p>{@link #draw} takes one long, {@link #encode} derives key, value and payload offset from it.
 */
public final class AverageEventCodec implements EventCodec {

    public static final int KEYS = 50;
    public static final int MAX_VALUE = 1000;
    public static final int MAX_PAYLOAD_BYTES = 60_000;
    private static final int BLOCK_BYTES = 1 << 16;

    private final int payloadBytes;
    private final byte[] block;

    public AverageEventCodec() {
        this(0);
    }

    public AverageEventCodec(int payloadBytes) {
        if (payloadBytes < 0 || payloadBytes > MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("payload bytes must be in [0, " + MAX_PAYLOAD_BYTES + "]");
        }
        this.payloadBytes = payloadBytes;
        this.block = new byte[payloadBytes == 0 ? 0 : BLOCK_BYTES + payloadBytes];
        SplittableRandom letters = new SplittableRandom(0x5eedL);
        for (int i = 0; i < block.length; i++) {
            block[i] = (byte) ('a' + letters.nextInt(26));
        }
    }

    @Override
    public byte[] encode(long packed, long eventTimeMs) {
        SplittableRandom r = new SplittableRandom(packed);
        int key = r.nextInt(KEYS);
        int value = r.nextInt(MAX_VALUE);
        if (payloadBytes == 0) {
            return ("w" + key + "," + value + "," + eventTimeMs).getBytes(StandardCharsets.US_ASCII);
        }
        byte[] head = ("w" + key + "," + value + ",").getBytes(StandardCharsets.US_ASCII);
        byte[] tail = ("," + eventTimeMs).getBytes(StandardCharsets.US_ASCII);
        byte[] line = new byte[head.length + payloadBytes + tail.length];
        System.arraycopy(head, 0, line, 0, head.length);
        System.arraycopy(block, r.nextInt(BLOCK_BYTES), line, head.length, payloadBytes);
        System.arraycopy(tail, 0, line, head.length + payloadBytes, tail.length);
        return line;
    }
}
