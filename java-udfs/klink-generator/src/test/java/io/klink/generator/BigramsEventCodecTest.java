package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Synthetic posts: their line format, size distribution and Zipf-distributed words; the Zipf sampler. */
class BigramsEventCodecTest {

    @Test
    void spellsRanksInBijectiveBase26() {
        assertEquals("a", BigramsEventCodec.spell(1));
        assertEquals("z", BigramsEventCodec.spell(26));
        assertEquals("aa", BigramsEventCodec.spell(27));
        assertEquals("zz", BigramsEventCodec.spell(702));
        assertEquals("aaa", BigramsEventCodec.spell(703));
        assertEquals(5, BigramsEventCodec.spell(BigramsEventCodec.MAX_VOCABULARY_SIZE).length());
    }

    @Test
    void aPostIsKeyWordCountWordsAndEventTimeAndReproducibleFromItsSeed() {
        BigramsEventCodec codec = new BigramsEventCodec(200, 1000, 1.0);
        byte[] line = codec.encode(77, 123_456);
        assertArrayEquals(line, codec.encode(77, 123_456));
        String[] c = new String(line, StandardCharsets.US_ASCII).split(",", -1);
        assertEquals(4, c.length);
        assertTrue(c[0].matches("w\\d+") && Integer.parseInt(c[0].substring(1)) < AverageEventCodec.KEYS);
        assertTrue(c[2].matches("[a-z]+( [a-z]+)*"), c[2]);
        assertEquals(Integer.parseInt(c[1]), c[2].split(" ").length);
        assertEquals("123456", c[3]);
    }

    @Test
    void postsAverageTheirMeanSizeAndVaryLogNormally() {
        BigramsEventCodec codec = new BigramsEventCodec(BigramsEventCodec.DEFAULT_MEAN_POST_BYTES,
                BigramsEventCodec.DEFAULT_VOCABULARY_SIZE, BigramsEventCodec.DEFAULT_WORD_SKEW);
        SplittableRandom rng = new SplittableRandom(1);
        int n = 4000;
        double sum = 0, sumLog = 0, sumLog2 = 0;
        for (int i = 0; i < n; i++) {
            String[] c = new String(codec.encode(rng.nextLong(), 0), StandardCharsets.US_ASCII).split(",");
            int bytes = c[2].length();
            sum += bytes;
            sumLog += Math.log(bytes);
            sumLog2 += Math.log(bytes) * Math.log(bytes);
        }
        double mean = sum / n, sigma = Math.sqrt(sumLog2 / n - Math.pow(sumLog / n, 2));
        assertEquals(BigramsEventCodec.DEFAULT_MEAN_POST_BYTES, mean, 0.03 * BigramsEventCodec.DEFAULT_MEAN_POST_BYTES);
        assertEquals(BigramsEventCodec.POST_LENGTH_SIGMA, sigma, 0.03);
    }

    @Test
    void wordsFollowTheirZipfLaw() {
        BigramsEventCodec codec = new BigramsEventCodec(20_000, 100, 1.0);
        String[] words = new String(codec.encode(5, 0), StandardCharsets.US_ASCII).split(",")[2].split(" ");
        long first = java.util.Arrays.stream(words).filter("a"::equals).count();
        long second = java.util.Arrays.stream(words).filter("b"::equals).count();
        double p1 = new Zipf(100, 1.0).probability(0);
        assertEquals(p1, (double) first / words.length, 0.02);
        assertEquals(2.0, (double) first / second, 0.4);  // P(1) / P(2) = 2^s
    }

    @Test
    void theGuideTableGivesTheBinarySearchsIndex() {
        Zipf zipf = new Zipf(1000, 1.2);
        double[] cdf = Zipf.cdf(1000, 1.2);
        SplittableRandom rng = new SplittableRandom(9);
        for (int i = 0; i < 20_000; i++) {
            double u = rng.nextDouble();
            assertEquals(RidesEventCodec.inverse(cdf, u), zipf.index(u));
        }
        assertEquals(0, new Zipf(1, 0).index(0.99));
    }

    @Test
    void refusesAnEmptyVocabularyOrPostsOrABadSkew() {
        assertThrows(IllegalArgumentException.class, () -> new BigramsEventCodec(100, 0, 1.0));
        assertThrows(IllegalArgumentException.class, () -> new BigramsEventCodec(0, 10, 1.0));
        assertThrows(IllegalArgumentException.class, () -> new BigramsEventCodec(100, 10, Double.NaN));
        assertThrows(IllegalArgumentException.class,
                () -> new BigramsEventCodec(100, BigramsEventCodec.MAX_VOCABULARY_SIZE + 1, 1.0));
    }
}
