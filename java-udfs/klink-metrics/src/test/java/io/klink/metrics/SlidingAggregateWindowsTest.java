package io.klink.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SlidingAggregateWindowsTest {

    private static Envelope event(String key, long t, double... fields) {
        Envelope e = Envelope.data(key, t, 0);
        e.fields = fields;
        return e;
    }

    private static List<Envelope> kind(List<Envelope> out, byte kind) {
        return out.stream().filter(e -> e.kind == kind).toList();
    }

    @Test
    void handComputedCountsAndAveragesOfTwoSecondWindowsSlidingByOne() {
        SlidingAggregateWindows w = new SlidingAggregateWindows(2000, 1000, 0, 2);
        w.add(event("a", 100, 10, 1));   // windows [-1000,1000) and [0,2000)
        w.add(event("a", 1500, 20, 3));  // [0,2000) and [1000,3000)
        w.add(event("b", 1900, 7, 5));   // [0,2000) and [1000,3000)
        List<Envelope> first = w.advance(999, 0);  // sweeps [-1000,1000): a once
        assertEquals(List.of(1000L), kind(first, Envelope.RESULT).stream().map(e -> e.timestamp).toList());
        assertEquals(1, kind(first, Envelope.RESULT).get(0).value);
        assertEquals(10.0, kind(first, Envelope.RESULT).get(0).fields[0]);
        List<Envelope> second = w.advance(1999, 0);  // [0,2000): a twice (avg 15, 2), b once
        Map<String, Envelope> byKey = new HashMap<>();
        kind(second, Envelope.RESULT).forEach(e -> byKey.put(e.key, e));
        assertEquals(2, byKey.get("a").value);
        assertEquals(15.0, byKey.get("a").fields[0]);
        assertEquals(2.0, byKey.get("a").fields[1]);
        assertEquals(1, byKey.get("b").value);
        Envelope firing = kind(second, Envelope.FIRING).get(0);
        assertEquals(3, firing.value);
        assertEquals(2, firing.keys);
        assertEquals(0, firing.windowStart);
        assertEquals(3000, w.nextDeadline());
    }

    @Test
    void weightedEventsCountTheirWeightAndWeighTheAverages() {
        // A sampler's sub-streams [0,500) and [500,1000) scaled up by 3 and 1.5; [1000,1500) by 2.
        SlidingAggregateWindows w = new SlidingAggregateWindows(2000, 1000, 0, 1);
        w.add(weighted(event("a", 100, 10), 3));
        w.add(weighted(event("a", 600, 20), 1.5));
        w.add(weighted(event("a", 1200, 40), 2));
        Envelope first = kind(w.advance(999, 0), Envelope.RESULT).get(0);  // [-1000,1000): 3 + 1.5 = 4.5
        assertEquals(4.5, first.weight, 1e-12);
        assertEquals(5, first.value);  // rounded
        assertEquals((3 * 10 + 1.5 * 20) / 4.5, first.fields[0], 1e-12);  // 13.33: weighted mean
        List<Envelope> second = w.advance(1999, 0);  // [0,2000): every event, 6.5 in all
        Envelope a = kind(second, Envelope.RESULT).get(0);
        assertEquals(6.5, a.weight, 1e-12);
        assertEquals((30 + 30 + 80) / 6.5, a.fields[0], 1e-12);  // the fare total 140 = weight × average
        assertEquals(3, kind(second, Envelope.FIRING).get(0).value);  // events that reached the window
    }

    private static Envelope weighted(Envelope e, double weight) {
        e.weight = weight;
        return e;
    }

    @Test
    void equalsANaiveLoopOverEveryWindowOnSeededInput() {
        equalsANaiveLoop(3000, 1000, 250);
    }

    @Test
    void equalsANaiveLoopWhenTheSlideDoesNotDivideTheSize() {
        equalsANaiveLoop(5000, 3000, 250);  // LRB's segment statistics: panes of gcd = 1 s
        equalsANaiveLoop(5000, 2000, 1700);
    }

    private static void equalsANaiveLoop(long size, long slide, long offset) {
        SlidingAggregateWindows w = new SlidingAggregateWindows(size, slide, offset, 1);
        Random r = new Random(7);
        List<long[]> events = new ArrayList<>();  // {t, key, value}
        for (int i = 0; i < 400; i++) {
            events.add(new long[] {r.nextInt(20_000), r.nextInt(3), r.nextInt(100)});
        }
        events.forEach(e -> w.add(event("k" + e[1], e[0], e[2])));
        TreeMap<Long, Map<String, Envelope>> got = new TreeMap<>();
        for (Envelope e : kind(w.advance(Long.MAX_VALUE - 1, 0), Envelope.RESULT)) {
            got.computeIfAbsent(e.timestamp, k -> new HashMap<>()).put(e.key, e);
        }
        // naive: every window [start, start + size) with start = offset + k * slide, every key
        for (long start = offset - (size / slide + 1) * slide; start < 21_000; start += slide) {
            for (int key = 0; key < 3; key++) {
                long count = 0;
                double sum = 0;
                for (long[] e : events) {
                    if (e[1] == key && e[0] >= start && e[0] < start + size) {
                        count++;
                        sum += e[2];
                    }
                }
                Envelope result = got.getOrDefault(start + size, Map.of()).get("k" + key);
                if (count == 0) {
                    assertEquals(null, result);
                } else {
                    assertEquals(count, result.value, "window ending " + (start + size));
                    assertEquals(sum / count, result.fields[0], 1e-9);
                }
            }
        }
    }

    @Test
    void lateEventsAreDroppedOnlyWhenTheirLastWindowFired() {
        SlidingAggregateWindows w = new SlidingAggregateWindows(2000, 1000, 0, 0);
        w.add(event("a", 2500));
        w.advance(1999, 0);  // [0,2000) never had data; [1000,3000) is still open
        assertTrue(w.add(event("a", 1500)));   // still counts in [1000,3000)
        assertFalse(w.add(event("a", 900)));   // [-1000,1000) and [0,2000) both swept
        List<Envelope> out = w.advance(2999, 0);
        assertEquals(2, kind(out, Envelope.RESULT).get(0).value);
        assertEquals(1, kind(out, Envelope.FIRING).get(0).lateDropped);
    }

    @Test
    void aMarkerIsHeldUntilTheFirstWindowContainingItFires() {
        SlidingAggregateWindows w = new SlidingAggregateWindows(2000, 1000, 0, 0);
        w.add(event("a", 1200));
        Envelope marker = Envelope.marker(1300);
        assertTrue(w.holdMarker(marker));
        assertTrue(w.advance(1500, 0).isEmpty());
        List<Envelope> out = w.advance(1999, 0);
        assertEquals(Envelope.FIRING, out.get(out.size() - 2).kind);
        assertSame(marker, out.get(out.size() - 1));
        assertFalse(w.holdMarker(Envelope.marker(1400)));
    }

    @Test
    void lrbFiveSecondWindowsSlidingByThreeFireEveryThreeSeconds() {
        SlidingAggregateWindows w = new SlidingAggregateWindows(5000, 3000, 0, 1);
        w.add(event("s", 1500, 10));  // windows [-3000,2000) and [0,5000)
        w.add(event("s", 4500, 30));  // [0,5000) and [3000,8000)
        assertEquals(2000, w.nextDeadline());
        assertEquals(1, kind(w.advance(1999, 0), Envelope.RESULT).get(0).value);
        Envelope both = kind(w.advance(4999, 0), Envelope.RESULT).get(0);
        assertEquals(2, both.value);
        assertEquals(20.0, both.fields[0]);
        assertEquals(8000, w.nextDeadline());
        assertTrue(w.holdMarker(Envelope.marker(5100)));  // first window containing it ends at 8000
        assertTrue(w.advance(7998, 0).isEmpty());
        assertEquals(3, w.advance(7999, 0).size());  // result, firing, marker
    }

    @Test
    void theSizeMustBeAtLeastTheSlide() {
        assertThrows(IllegalArgumentException.class, () -> new SlidingAggregateWindows(1000, 2500, 0, 0));
    }
}
