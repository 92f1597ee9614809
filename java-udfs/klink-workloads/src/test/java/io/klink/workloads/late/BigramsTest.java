package io.klink.workloads.late;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bigrams window function, its digest (the same number klinkctl's exact recomputation gives), and AION
 *  computing it over posts that went through its p-buckets. */
class BigramsTest {

    @TempDir
    Path tmp;

    private static LateEvent post(String key, String text, long t) {
        return new LateEvent(key, text.split(" ").length, t, text);
    }

    @Test
    void countsAdjacentWordPairsWithinEachPostAndDigestsTheCounts() {
        List<Double> r = new Bigrams().apply(List.of(post("w1", "a b a b", 0), post("w1", "b a zz", 1)));
        // (a,b) x2, (b,a) x2, (a,zz) x1: no bigram across the two posts; tests/unit/test_bigrams.py has the same
        assertEquals(List.of(2.0, 7.0, 5.0, 3.0, 351157171146550.0), r);
        assertEquals(new Bigrams().fields().size(), r.size());
    }

    @Test
    void theDigestSeesAnyChangedCountButNotTheOrder() {
        double digest = new Bigrams().apply(List.of(post("w", "a b a b", 0), post("w", "b a zz", 1))).get(4);
        assertEquals(digest, new Bigrams().apply(List.of(post("w", "b a zz", 1), post("w", "a b a b", 0))).get(4));
        assertNotEquals(digest, new Bigrams().apply(List.of(post("w", "a b a b", 0), post("w", "b a z", 1))).get(4));
        assertNotEquals(digest, new Bigrams().apply(List.of(post("w", "a b a b", 0))).get(4));
        assertEquals(List.of(1.0, 0.0, 0.0, 0.0, 0.0), new Bigrams().apply(List.of(post("w", "", 0))));
    }

    @Test
    void aionComputesTheBigramsOfEveryPostIncludingThoseStagedBackFromDisk() throws Exception {
        AionWindows.Settings settings = new AionWindows.Settings(1000, 0, 10_000, 3, 0.0).computing(new Bigrams());
        SplittableRandom rng = new SplittableRandom(3);
        Map<String, List<LateEvent>> all = new HashMap<>();
        try (AionWindows w = new AionWindows(settings, new PBuckets(tmp.resolve("q00-0")),
                new IoScheduler("test-io", true))) {
            for (int i = 0; i < 12; i++) {  // 3 in memory per window, the rest overflows to the p-bucket
                StringBuilder text = new StringBuilder();
                for (int j = 0; j < 20; j++) {
                    text.append(j == 0 ? "" : " ").append((char) ('a' + rng.nextInt(4)));
                }
                LateEvent e = post("w" + i % 2, text.toString(), 100 + i);
                w.add(e);
                all.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
            }
            LateEvent late = post("w0", "late post d d", 500);
            w.advance(1500);
            w.add(late);  // late: to the p-bucket, re-executed on the next tick
            all.get("w0").add(late);
            List<AionWindows.Result> again = w.reExecute();  // the whole window again, every key
            assertEquals(List.of("w0", "w1"), again.stream().map(AionWindows.Result::key).toList());
            assertEquals(new Bigrams().apply(all.get("w0")), again.get(0).values());
            assertEquals(new Bigrams().apply(all.get("w1")), again.get(1).values());
            assertEquals(7, again.get(0).events());
            assertTrue(w.counters().overflowWrites() > 0 && w.counters().staged() > 0);
        }
    }
}
