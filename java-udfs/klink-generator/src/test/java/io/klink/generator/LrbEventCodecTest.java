package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LrbEventCodecTest {

    private static final int RATE = 50;  // 1 500 cars

    /** {@code n} reports of topic 0, one every 1000/RATE ms from t = 0, as the generator draws them. */
    private static List<String> reports(long seed, double accidentsPerMinute, int n) {
        LrbEventCodec codec = new LrbEventCodec(seed, RATE, 2, accidentsPerMinute);
        EventCodec topic = codec.forTopic(0);
        SplittableRandom rng = SeedStreams.of(seed, 1).events[0];
        List<String> lines = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            lines.add(new String(topic.encode(topic.draw(rng), k * 1000L / RATE)));
        }
        return lines;
    }

    private static int[] fields(String line) {
        String[] c = line.split(",");
        assertEquals(10, c.length, line);
        int[] f = new int[9];
        for (int i = 0; i < 9; i++) {
            f[i] = Integer.parseInt(c[i]);
        }
        return f;
    }

    @Test
    void everyCarReportsEvery30sAndDrivesItsDirectionUntilItExits() {
        LrbEventCodec codec = new LrbEventCodec(1, RATE, 2, 0);
        assertEquals(30 * RATE, codec.cars());
        List<String> lines = reports(1, 0, 30 * RATE * 40);  // 20 minutes
        Map<Integer, int[]> last = new HashMap<>();  // vid -> previous report
        Map<Integer, Integer> lastIndex = new HashMap<>();
        Set<Integer> exited = new HashSet<>();
        for (int i = 0; i < lines.size(); i++) {
            int[] f = fields(lines.get(i));  // type, time, vid, speed, xway, lane, dir, seg, pos
            assertEquals(0, f[0]);
            assertEquals(f[8] / 5280, f[7]);
            assertTrue(f[4] < 2 && f[5] <= 4 && f[8] < 528_000 && f[3] <= 79);
            int vid = f[2];
            assertTrue(!exited.contains(vid), "a car that exited reported again");
            int[] prev = last.put(vid, f);
            if (prev != null) {
                assertEquals(30 * RATE, i - lastIndex.get(vid), "one report per 30 s");
                assertEquals(prev[6], f[6]);
                assertEquals(prev[4], f[4]);
                assertNear(f[6] == 0 ? prev[8] + 44 * f[3] : prev[8] - 44 * f[3], f[8], 5280, lines.get(i));
                assertTrue(f[6] == 0 ? f[8] >= prev[8] : f[8] <= prev[8]);
            }
            lastIndex.put(vid, i);
            if (f[5] == LrbEventCodec.EXIT_LANE) {
                exited.add(vid);
            }
        }
        assertTrue(exited.size() > 30 * RATE / 2, "cars leave and new ones enter: " + exited.size());
    }

    private static void assertNear(int expected, int actual, int tolerance, String message) {
        assertTrue(Math.abs(expected - actual) <= tolerance, message);
    }

    @Test
    void accidentsHappenAtTheSeededRateAndFollowTheLinearRoadRule() {
        int minutes = 30;
        List<String> lines = reports(7, 2, RATE * 60 * minutes);
        // naive LR rule: >= 2 cars each with 4 consecutive stopped reports at one (xway, dir, lane, pos)
        Map<Integer, String> place = new HashMap<>();
        Map<Integer, Integer> run = new HashMap<>();
        Map<String, Set<Integer>> stoppedAt = new HashMap<>();
        Set<String> accidents = new HashSet<>();
        for (String line : lines) {
            int[] f = fields(line);
            String at = f[4] + "/" + f[6] + "/" + f[5] + "/" + f[8];
            int vid = f[2];
            int n = f[3] == 0 && at.equals(place.get(vid)) ? run.getOrDefault(vid, 1) + 1 : 1;
            place.put(vid, at);
            run.put(vid, n);
            if (f[3] == 0 && n >= 4) {
                Set<Integer> cars = stoppedAt.computeIfAbsent(at, k -> new HashSet<>());
                cars.add(vid);
                if (cars.size() >= 2) {
                    accidents.add(at);
                }
            } else {
                stoppedAt.values().forEach(cars -> cars.remove(vid));
            }
        }
        // 2 per minute start (Poisson); a few give up (no second car within 10 minutes) or end after the input
        assertTrue(accidents.size() >= minutes && accidents.size() <= 3 * minutes, "accidents: " + accidents.size());
        assertEquals(0, stoppedReports(reports(7, 0, RATE * 60 * 10)));
    }

    private static int stoppedReports(List<String> lines) {
        return (int) lines.stream().filter(l -> fields(l)[3] == 0).count();
    }

    @Test
    void sameSeedSameReportsAndAnotherSeedOthers() {
        assertEquals(reports(3, 2, 5000), reports(3, 2, 5000));
        assertNotEquals(reports(3, 2, 5000), reports(4, 2, 5000));
        assertEquals("0,1700000000,5,61,1,3,0,10,53000,1700000000123",
                LrbEventCodec.line(LrbEventCodec.pack(5, 61, 1, 3, 0, 53_000), 1_700_000_000_123L));
    }
}
