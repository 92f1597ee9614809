package io.klink.workloads.late;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The AION paper's {@code bigrams} (seed aion-late-events-esteves.txt §5, "Workloads": all bigrams of a stream of
 * posts) as a {@link LateWindowFunction}: per key and window, the count of every bigram (two adjacent words of one
 * post) over the window's posts (each event's payload). A word is a maximal run of the letters a–z, read as the
 * number it spells in bijective base 26 ({@code a} = 1, {@code z} = 26, {@code aa} = 27: the generator's
 * vocabulary rank). The full count map is too large for a RESULT row, so the row carries a digest of it that the
 * harness recomputes exactly from the generated posts (klinkctl/workloads/bigrams.py): posts, words, bigrams (the
 * counts' total), distinct bigrams, and {@link #digest} — the sum over distinct bigrams of a 64-bit mix of
 * (bigram, count), modulo 2^53 (exact in a double): any changed, missing or extra count changes it.
 */
public final class Bigrams implements LateWindowFunction {

    /** A bigram's code: first word's rank shifted by this many bits, or'ed with the second's. */
    public static final int RANK_BITS = 24;
    /** The digest's modulus, 2^53: every value below it is exact in a double. */
    public static final long DIGEST_MASK = (1L << 53) - 1;

    @Override
    public List<String> fields() {
        return List.of("posts", "words", "bigrams", "distinct_bigrams", "digest");
    }

    @Override
    public List<Double> apply(List<LateEvent> events) {
        Map<Long, int[]> counts = new HashMap<>();
        long words = 0, bigrams = 0;
        for (LateEvent e : events) {
            long previous = -1;
            String post = e.payload() == null ? "" : e.payload();
            for (int i = 0; i < post.length(); ) {
                if (!isLetter(post.charAt(i))) {
                    i++;
                    continue;
                }
                long rank = 0;
                for (; i < post.length() && isLetter(post.charAt(i)); i++) {
                    rank = rank * 26 + (post.charAt(i) - 'a' + 1);
                }
                words++;
                if (previous >= 0) {
                    counts.computeIfAbsent(previous << RANK_BITS | rank, b -> new int[1])[0]++;
                    bigrams++;
                }
                previous = rank;
            }
        }
        long digest = 0;
        for (Map.Entry<Long, int[]> c : counts.entrySet()) {
            digest += mix(c.getKey(), c.getValue()[0]);
        }
        return List.of((double) events.size(), (double) words, (double) bigrams, (double) counts.size(),
                (double) (digest & DIGEST_MASK));
    }

    private static boolean isLetter(char c) {
        return c >= 'a' && c <= 'z';
    }

    /** A bigram's and its count's 64-bit mix: golden-ratio multiply, then the SplitMix64 finaliser. */
    public static long mix(long bigram, long count) {
        long z = bigram * 0x9E3779B97F4A7C15L + count;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
