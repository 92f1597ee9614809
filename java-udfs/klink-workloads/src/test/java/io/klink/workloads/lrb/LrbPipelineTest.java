package io.klink.workloads.lrb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.klink.metrics.Envelope;
import io.klink.metrics.SlidingAggregateWindows;
import io.klink.workloads.common.CsvLineDeserializer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.junit.jupiter.api.Test;

/**
 * The LRB query without Flink, on hand-written position reports (expressway 0, eastbound): parse, the
 * three sub-streams, the 5 s / 3 s statistics window and the 3 s toll window, watermarks = the latest event
 * time - 1. Expected tolls and accidents are worked out by hand in the comments.
 */
class LrbPipelineTest {

    private static final int FEET = 5280;
    private static final long MIN_CARS = 2;  // the test's toll threshold (LR: 50)

    /** LR type-0 report: car {@code vid} at {@code speed} mph in segment {@code seg} (+ {@code feet}), lane. */
    private static String report(long t, int vid, int speed, int seg, int feet, int lane) {
        return "0," + t / 1000 + "," + vid + "," + speed + ",0," + lane + ",0," + seg + "," + (seg * FEET + feet)
                + "," + t;
    }

    private static String report(long t, int vid, int speed, int seg) {
        return report(t, vid, speed, seg, 500, 2);
    }

    /** The pipeline of LrbJob, driven by hand; collects the toll window's output. */
    private static final class Query {
        final SlidingAggregateWindows stats = new SlidingAggregateWindows(5000, 3000, 0, 1);
        final TollWindows tolls;
        final LrbOperators.Accidents accidents = new LrbOperators.Accidents();
        final LrbOperators.Crossings crossings = new LrbOperators.Crossings();
        final List<Envelope> accidentChanges = new ArrayList<>();
        final List<Envelope> out = new ArrayList<>();

        Query(long tollWindowMs) {
            tolls = new TollWindows(tollWindowMs, 5000, MIN_CARS);
        }

        void watermark(long w) {
            List<Envelope> statsRows = new ArrayList<>();
            for (Envelope e : stats.advance(w, 0)) {
                new LrbOperators.StatsRows().flatMap(e, new ListCollector<>(statsRows));
            }
            statsRows.stream().filter(Envelope::isData).forEach(tolls::add);
            out.addAll(tolls.advance(w, 0));
        }

        void add(String line) throws IOException {
            Envelope e = new CsvLineDeserializer("LRB report").deserialize(line.getBytes(StandardCharsets.US_ASCII));
            watermark(e.timestamp - 1);
            List<Envelope> parsed = new ArrayList<>();
            new LrbOperators.Parse().flatMap(e, new ListCollector<>(parsed));
            for (Envelope p : parsed) {
                stats.add(p);
                List<Envelope> joined = new ArrayList<>();
                accidents.flatMap(copy(p), new ListCollector<>(joined));
                accidentChanges.addAll(joined);
                crossings.flatMap(copy(p), new ListCollector<>(joined));
                joined.forEach(tolls::add);
            }
        }

        /** Flink copies a record for each of several chained consumers. */
        private static Envelope copy(Envelope e) {
            Envelope c = Envelope.data(e.key, e.timestamp, e.value);
            c.fields = e.fields.clone();
            return c;
        }

        /** window end -> {total tolls, tolled cars, crossings} */
        Map<Long, long[]> tollsByWindow() {
            Map<Long, long[]> by = new TreeMap<>();
            for (Envelope e : out) {
                if (e.kind == Envelope.RESULT) {
                    long[] w = by.computeIfAbsent(e.timestamp, k -> new long[3]);
                    w[0] += (long) e.fields[TollWindows.R_TOLLS];
                    w[1] += e.value;
                } else if (e.kind == Envelope.FIRING) {
                    by.computeIfAbsent(e.timestamp, k -> new long[3])[2] = e.value;
                }
            }
            return by;
        }
    }

    private static final List<String> REPORTS = List.of(
            // toll window [-1000, 2000): crossings of cars 1 and 4, no statistics yet -> no toll
            report(1000, 1, 20, 10), report(1100, 4, 60, 20),
            // [2000, 5000): statistics of [-3000, 2000): one car per segment -> no toll
            report(2500, 2, 30, 10), report(2600, 5, 70, 20), report(3000, 7, 10, 30), report(3500, 8, 10, 30),
            report(4000, 3, 10, 10), report(4100, 6, 80, 20),
            // [5000, 8000): statistics of [0, 5000): seg 10 has 3 cars at 20 mph avg -> 2 (3 - 2)^2 = 2;
            // seg 20 fast (70 mph), seg 30 only 2 cars -> 0. Car 1 stays in seg 10: no crossing.
            report(5500, 9, 15, 10), report(6000, 1, 20, 10), report(6500, 10, 60, 20), report(7000, 11, 10, 30),
            // [8000, 11000): cars 12 and 13 stop at seg 12 + 100 ft, lane 1, 4 reports each: accident at 8450,
            // 2 segments downstream of seg 10 -> crossings into seg 10 pay 0 although [3000, 8000) has 3 cars
            // at 15 mph there (cars 3, 9, 1)
            report(8100, 12, 0, 12, 100, 1), report(8150, 13, 0, 12, 100, 1),
            report(8200, 12, 0, 12, 100, 1), report(8250, 13, 0, 12, 100, 1),
            report(8300, 12, 0, 12, 100, 1), report(8350, 13, 0, 12, 100, 1),
            report(8400, 12, 0, 12, 100, 1), report(8450, 13, 0, 12, 100, 1),
            report(9000, 14, 10, 10), report(9500, 18, 30, 10),
            // [11000, 14000): car 12 drives off (accident cleared); seg 10 in [6000, 11000): cars 1, 14, 18 at
            // 20 mph avg -> car 17 pays 2. An exit-lane report is never charged.
            report(11500, 12, 50, 12, 2300, 1), report(12000, 17, 25, 10), report(12500, 19, 30, 10, 900, 4));

    @Test
    void tollsAndAccidentsOfAHandWrittenDrive() throws IOException {
        Query query = new Query(3000);
        for (String line : REPORTS) {
            query.add(line);
        }
        query.watermark(Long.MAX_VALUE - 1);
        assertEquals(List.of(LrbOperators.ACCIDENT, LrbOperators.CLEARED),
                query.accidentChanges.stream().map(e -> e.value).toList());
        assertEquals(8450, query.accidentChanges.get(0).timestamp);
        assertEquals("0.0.12", query.accidentChanges.get(0).key);
        assertEquals(11500, query.accidentChanges.get(1).timestamp);
        Map<Long, long[]> byWindow = query.tollsByWindow();
        // window end -> {tolls, tolled cars, crossings}
        // the last statistics (ending 14000 and 17000, swept by the final watermark) open two windows of their own
        assertEquals(List.of(2000L, 5000L, 8000L, 11000L, 14000L, 17000L, 20000L), List.copyOf(byWindow.keySet()));
        assertEquals(0, byWindow.get(17000L)[2] + byWindow.get(20000L)[2]);
        assertEquals(List.of(0L, 0L, 2L), List.of(byWindow.get(2000L)[0], byWindow.get(2000L)[1], byWindow.get(2000L)[2]));
        assertEquals(List.of(0L, 0L, 6L), List.of(byWindow.get(5000L)[0], byWindow.get(5000L)[1], byWindow.get(5000L)[2]));
        assertEquals(List.of(2L, 1L, 3L), List.of(byWindow.get(8000L)[0], byWindow.get(8000L)[1], byWindow.get(8000L)[2]));
        assertEquals(List.of(0L, 0L, 4L), List.of(byWindow.get(11000L)[0], byWindow.get(11000L)[1], byWindow.get(11000L)[2]));
        assertEquals(List.of(2L, 1L, 1L), List.of(byWindow.get(14000L)[0], byWindow.get(14000L)[1], byWindow.get(14000L)[2]));
        Envelope seg10AtAccident = query.out.stream()
                .filter(e -> e.kind == Envelope.RESULT && e.timestamp == 11000 && e.key.equals("0.0.10")).findFirst().get();
        assertEquals(1.0, seg10AtAccident.fields[TollWindows.R_ACCIDENT_AHEAD]);
        assertEquals(2.0, seg10AtAccident.fields[TollWindows.R_CROSSINGS]);
    }

    @Test
    void theStressedVariantFiresEverySecondWithTheSameTolls() throws IOException {
        Query query = new Query(1000);
        for (String line : REPORTS) {
            query.add(line);
        }
        query.watermark(Long.MAX_VALUE - 1);
        Map<Long, long[]> byWindow = query.tollsByWindow();
        assertTrue(byWindow.keySet().stream().allMatch(end -> end % 1000 == 0));
        assertEquals(4, byWindow.values().stream().mapToLong(w -> w[0]).sum());  // cars 9 and 17, 2 each
        assertEquals(16, byWindow.values().stream().mapToLong(w -> w[2]).sum());  // every crossing once
        assertEquals(2, byWindow.get(6000L)[0]);  // car 9 at 5500
        // the accident (8450) counts from its own 1 s window on: car 14 (9000) and car 18 (9500) pay nothing
        assertEquals(0, byWindow.get(10000L)[0]);
    }

    @Test
    void linearRoadTollFormula() {
        TollWindows w = new TollWindows(3000, 0, 50);
        assertEquals(2 * 9, w.toll(new double[] {53, 30}));  // 2 (53 - 50)^2
        assertEquals(0, w.toll(new double[] {53, 40}));      // not slow
        assertEquals(0, w.toll(new double[] {50, 10}));      // not more than 50 cars
        assertEquals(0, w.toll(null));
    }

    @Test
    void malformedReportsAreDropped() {
        List<Envelope> out = new ArrayList<>();
        Envelope bad = Envelope.data("0,1,2,x,0,1,0,3,4,5", 5, 0);
        new LrbOperators.Parse().flatMap(bad, new ListCollector<>(out));
        new LrbOperators.Parse().flatMap(Envelope.data("2,1,2,3,4,5", 5, 0), new ListCollector<>(out));
        assertTrue(out.isEmpty());
    }
}
