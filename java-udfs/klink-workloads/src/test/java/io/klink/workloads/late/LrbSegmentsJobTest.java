package io.klink.workloads.late;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.klink.metrics.Envelope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LRB's segment statistics in the late-event windows: the parse of a position report, the window function, and
 *  AION computing it over reports that went through its p-buckets (tests/unit/test_lrb_segments.py has the same
 *  numbers). */
class LrbSegmentsJobTest {

    @TempDir
    Path tmp;

    private static final LrbSegmentsJob.SegmentStatistics STATISTICS = new LrbSegmentsJob.SegmentStatistics();

    private static LateEvent report(int vid, int speed, long t) {
        return new LateEvent("0.1.42", speed, t, Integer.toString(vid));
    }

    @Test
    void parsesAReportIntoItsSegmentSpeedAndVehicleAndMarksMalformedOnes() {
        Envelope e = new LrbSegmentsJob.Parse().map(Envelope.data("0,12,107,55,3,2,1,42,222000,12345", 12345, 0));
        assertEquals("3.1.42", e.key);
        assertArrayEquals(new double[] {55}, e.fields);
        assertEquals("107", e.payload);
        for (String bad : List.of("1,12,107,55,3,2,1,42,222000,12345", "0,12,107,x,3,2,1,42,222000,12345",
                "0,12,107,55,3,2,1,42,12345", "w7,532,1000")) {
            assertNull(new LrbSegmentsJob.Parse().map(Envelope.data(bad, 12345, 0)).key, bad);
        }
        Envelope marker = Envelope.marker(12345);
        assertSame(marker, new LrbSegmentsJob.Parse().map(marker));  // instrumentation passes through
    }

    @Test
    void countsReportsAndDistinctVehiclesAndAveragesTheReportsSpeeds() {
        List<Double> r = STATISTICS.apply(List.of(report(1, 50, 0), report(2, 31, 1), report(1, 60, 2),
                report(3, 0, 3)));
        assertEquals(List.of(4.0, 3.0, 35.25), r);  // vehicle 1 reported twice; (50 + 31 + 60 + 0) / 4
        assertEquals(STATISTICS.fields().size(), r.size());
        assertEquals(List.of(0.0, 0.0, 0.0), STATISTICS.apply(List.of()));
    }

    @Test
    void aionComputesTheStatisticsOfEveryReportIncludingThoseStagedBackFromDisk() throws Exception {
        AionWindows.Settings settings = new AionWindows.Settings(1000, 0, 10_000, 3, 0.0).computing(STATISTICS);
        List<LateEvent> all = new ArrayList<>();
        try (AionWindows w = new AionWindows(settings, new PBuckets(tmp.resolve("q00-0")),
                new IoScheduler("test-io", true))) {
            for (int i = 0; i < 12; i++) {  // 3 in memory, the rest overflows to the p-bucket
                LateEvent e = report(100 + i % 5, 10 + 7 * i, 100 + i);
                w.add(e);
                all.add(e);
            }
            LateEvent late = report(999, 1, 500);
            w.advance(1500);
            w.add(late);  // late: to the p-bucket, re-executed on the next tick
            all.add(late);
            List<AionWindows.Result> again = w.reExecute();
            assertEquals(1, again.size());
            assertEquals(List.of(13.0, 6.0, (12 * 10 + 7 * 66 + 1) / 13.0), again.get(0).values());
            assertEquals(STATISTICS.apply(all), again.get(0).values());
            assertTrue(w.counters().overflowWrites() > 0 && w.counters().staged() > 0);
        }
    }
}
