package io.klink.workloads.rides;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.klink.metrics.Envelope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The combiner's buffer and the global window: combining first must not change any window's result. */
class CombinerTest {

    private static Envelope trip(RideAggregate a, String region, long t, int driver, int passengers, double fare) {
        Envelope e = Envelope.data(region, t, 1);
        e.fields = a.tripFields(driver, passengers, fare);
        return e;
    }

    private static Map<String, List<Double>> results(List<Envelope> out) {
        Map<String, List<Double>> byWindowAndKey = new HashMap<>();
        for (Envelope e : out) {
            if (e.kind == Envelope.RESULT) {
                List<Double> values = new ArrayList<>(List.of((double) e.value));
                for (double f : e.fields) {
                    values.add(f);
                }
                byWindowAndKey.put(e.timestamp + "/" + e.key, values);
            }
        }
        return byWindowAndKey;
    }

    /** Random trips over 10 windows, once straight into the windows and once through two combiners. */
    private static void combiningKeepsEveryWindowsResult(RideAggregate a) {
        SplittableRandom r = new SplittableRandom(7);
        RideWindows direct = new RideWindows(1000, 300, a), combined = new RideWindows(1000, 300, a);
        CombinerBuffer[] combiners = {new CombinerBuffer(a, 1000, 300), new CombinerBuffer(a, 1000, 300)};
        List<Envelope> directOut = new ArrayList<>(), combinedOut = new ArrayList<>();
        for (long t = 0; t < 10_000; t += 3) {
            Envelope e = trip(a, "r" + r.nextInt(5), t, r.nextInt(20), 1 + r.nextInt(6), 2.5 + r.nextInt(5000) / 100.0);
            assertTrue(direct.add(e), "no trip is late");
            combiners[r.nextInt(2)].add(e);
            if (t % 700 == 0) {  // a watermark, emitted after the partials it covers
                for (CombinerBuffer c : combiners) {
                    c.holdWatermark(t - 1);
                    c.drain().forEach(p -> assertTrue(combined.add(p), "no partial is late"));
                    c.takeWatermark();
                }
                directOut.addAll(direct.advance(t - 1, 0));
                combinedOut.addAll(combined.advance(t - 1, 0));
            }
        }
        for (CombinerBuffer c : combiners) {
            c.drain().forEach(p -> assertTrue(combined.add(p), "no partial is late"));
        }
        directOut.addAll(direct.advance(20_000, 0));
        combinedOut.addAll(combined.advance(20_000, 0));
        assertEquals(55, results(directOut).size());  // 11 windows (offset 300) × 5 regions
        assertEquals(results(directOut), results(combinedOut));
    }

    @Test
    void combiningKeepsEveryWindowsPassengersTripsAndHighestFare() {
        combiningKeepsEveryWindowsResult(RideAggregate.PASSENGERS);
    }

    @Test
    void combiningKeepsEveryWindowsDistinctDrivers() {
        combiningKeepsEveryWindowsResult(RideAggregate.DRIVERS);
    }

    @Test
    void aDistributivePartialIsTwoNumbersButADistinctCountsPartialCarriesEveryDriver() {
        for (RideAggregate a : RideAggregate.values()) {
            CombinerBuffer c = new CombinerBuffer(a, 1000, 0);
            for (int driver = 0; driver < 40; driver++) {
                c.add(trip(a, "r1", 10, driver, 2, 10.0));
            }
            List<Envelope> out = c.drain();
            assertEquals(1, out.size());
            assertEquals(40, out.get(0).value);
            assertEquals(999, out.get(0).timestamp, "stamped with its window's last ms");
            assertEquals(a == RideAggregate.PASSENGERS ? 2 : 40, out.get(0).fields.length);
        }
    }

    @Test
    void markersComeAfterThePartialsAndTheWatermarkOnlyOnceItAdvanced() {
        CombinerBuffer c = new CombinerBuffer(RideAggregate.PASSENGERS, 1000, 0);
        c.add(trip(RideAggregate.PASSENGERS, "r1", 10, 1, 1, 5.0));
        Envelope marker = Envelope.marker(123);
        c.hold(marker);
        c.add(trip(RideAggregate.PASSENGERS, "r2", 1500, 1, 3, 7.0));
        c.holdWatermark(900);
        List<Envelope> out = c.drain();
        assertEquals(List.of("r1", "r2"), List.of(out.get(0).key, out.get(1).key));
        assertEquals(marker, out.get(2));
        assertArrayEquals(new double[] {3, 7.0}, out.get(1).fields);
        assertEquals(900L, c.takeWatermark());
        assertNull(c.takeWatermark());
        c.holdWatermark(800);  // not an advance
        assertNull(c.takeWatermark());
    }
}
