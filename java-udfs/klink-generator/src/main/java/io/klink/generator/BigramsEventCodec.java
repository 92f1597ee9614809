package io.klink.generator;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The Aion paper's {@code bigrams} micro-benchmark (seed aion-late-events-esteves.txt §5: all bigrams of a stream
 * of tweets; Table 1: 3584-byte events). No tweets are available here, so the posts are synthetic: one CSV line per
 * event, {@code w<key>,<words>,<post>,event_time}, the key one of {@link AverageEventCodec#KEYS} drawn uniformly
 * (as {@code average}'s), the post words separated by single spaces, {@code <words>} how many.
 * <ul>
 *   <li>Words: drawn independently from a Zipf law over a vocabulary of {@code vocabularySize} words with exponent
 *       {@code wordSkew} (rank k with probability ∝ 1/k^s; s ≈ 1 is Zipf's law of natural text). Rank k is spelled
 *       as k in bijective base 26 ({@code a}, …, {@code z}, {@code aa}, …): the most frequent words are the
 *       shortest, and a word's rank can be read back from its letters (what the window and the harness do).
 *   <li>Length: each post's target size in bytes is log-normal with mean {@code meanPostBytes} and σ =
 *       {@link #POST_LENGTH_SIGMA} (of the log), at most {@link AverageEventCodec#MAX_PAYLOAD_BYTES}; words are
 *       added until the post reaches it (so a post overshoots its target by less than a word), at least one.
 * </ul>
 * {@link #draw} takes one long (the post's own seed), {@link #encode} derives key and post from it.
 */
public final class BigramsEventCodec implements EventCodec {

    /** The paper's bigrams event size (Table 1). */
    public static final int DEFAULT_MEAN_POST_BYTES = 3584;
    public static final int DEFAULT_VOCABULARY_SIZE = 50_000;
    public static final double DEFAULT_WORD_SKEW = 1.0;
    /** Spelled in at most 5 letters (bijective base 26 reaches 12 356 630 there). */
    public static final int MAX_VOCABULARY_SIZE = 1_000_000;
    public static final double MAX_WORD_SKEW = 10;
    /** The spread of a post's size: σ of its logarithm. */
    public static final double POST_LENGTH_SIGMA = 0.5;
    private static final int MAX_WORD_BYTES = 5;

    private final double meanPostBytes;
    private final Zipf vocabulary;
    private final byte[][] spelled;

    public BigramsEventCodec(int meanPostBytes, int vocabularySize, double wordSkew) {
        if (meanPostBytes < 1 || meanPostBytes > AverageEventCodec.MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("the mean post size must be in [1, "
                    + AverageEventCodec.MAX_PAYLOAD_BYTES + "] bytes, got " + meanPostBytes);
        }
        if (vocabularySize < 1 || vocabularySize > MAX_VOCABULARY_SIZE) {
            throw new IllegalArgumentException("the vocabulary size must be in [1, " + MAX_VOCABULARY_SIZE
                    + "], got " + vocabularySize);
        }
        if (!(wordSkew >= 0 && wordSkew <= MAX_WORD_SKEW)) {
            throw new IllegalArgumentException("the word skew must be in [0, " + MAX_WORD_SKEW + "], got "
                    + wordSkew);
        }
        this.meanPostBytes = meanPostBytes;
        this.vocabulary = new Zipf(vocabularySize, wordSkew);
        this.spelled = new byte[vocabularySize][];
        for (int k = 0; k < vocabularySize; k++) {
            spelled[k] = spell(k + 1).getBytes(StandardCharsets.US_ASCII);
        }
    }

    /** Rank k ≥ 1 in bijective base 26: 1 = a, 26 = z, 27 = aa, 702 = zz, 703 = aaa. */
    public static String spell(long rank) {
        StringBuilder word = new StringBuilder();
        for (long k = rank; k > 0; k = (k - 1) / 26) {
            word.append((char) ('a' + (k - 1) % 26));
        }
        return word.reverse().toString();
    }

    /** The size in bytes a post aims at: log-normal with the configured mean, capped so it fits an event. */
    int targetBytes(SplittableRandom r) {
        double median = meanPostBytes * Math.exp(-POST_LENGTH_SIGMA * POST_LENGTH_SIGMA / 2);
        double target = median * Math.exp(POST_LENGTH_SIGMA * NytEventCodec.gaussian(r));
        return (int) Math.max(1, Math.min(AverageEventCodec.MAX_PAYLOAD_BYTES - MAX_WORD_BYTES, Math.round(target)));
    }

    @Override
    public byte[] encode(long packed, long eventTimeMs) {
        SplittableRandom r = new SplittableRandom(packed);
        int key = r.nextInt(AverageEventCodec.KEYS);
        int target = targetBytes(r);
        byte[] post = new byte[target + MAX_WORD_BYTES];
        int length = 0, words = 0;
        while (length < target) {
            if (words++ > 0) {
                post[length++] = ' ';
            }
            byte[] word = spelled[vocabulary.index(r.nextDouble())];
            System.arraycopy(word, 0, post, length, word.length);
            length += word.length;
        }
        byte[] head = ("w" + key + "," + words + ",").getBytes(StandardCharsets.US_ASCII);
        byte[] tail = ("," + eventTimeMs).getBytes(StandardCharsets.US_ASCII);
        byte[] line = Arrays.copyOf(head, head.length + length + tail.length);
        System.arraycopy(post, 0, line, head.length, length);
        System.arraycopy(tail, 0, line, head.length + length, tail.length);
        return line;
    }
}
