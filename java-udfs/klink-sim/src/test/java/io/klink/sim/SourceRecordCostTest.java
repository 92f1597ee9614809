package io.klink.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A source's per-Kafka-record cost (klinkctl's --source-record-cost-ns): spread over the events a record carries. */
class SourceRecordCostTest {

    @TempDir
    Path dir;

    /** One YSB-shaped query whose source costs perEvent ns per event plus perRecord ns per Kafka record. */
    static SimSpec spec(double perEvent, double perRecord, double eventsPerRecord, long rate, double cores) {
        return SimulationTest.ysbShaped(rate, cores, perEvent, perRecord, eventsPerRecord, 100, 0);
    }

    /** The source's mean records (events) in per second over the run's throughput rows. */
    static double sourceEventsPerS(Path run) throws IOException {
        return SimulationTest.rows(run.resolve("throughput.csv")).stream().filter(r -> r[3].contains("source"))
                .mapToDouble(r -> Double.parseDouble(r[5])).average().orElseThrow();
    }

    @Test
    void theCostPerEventIsThePerEventPartPlusTheRecordsShare() {
        assertEquals(650.0, spec(500, 1500, 10, 1000, 1).queries().get(0).tasks().get(0).costNsPerEvent(), 1e-9);
        assertEquals(2000.0, spec(500, 1500, 1, 1000, 1).queries().get(0).tasks().get(0).costNsPerEvent(), 1e-9);
        assertEquals(100.0, spec(500, 1500, 1, 1000, 1).queries().get(0).tasks().get(1).costNsPerEvent(), 1e-9,
                "a window pays per record in, Kafka records are the sources'");
    }

    @Test
    void withoutAPerRecordCostTheRunIsBitForBitTheConstantCostOne() throws IOException {
        new Simulation(spec(2000, 0, 1, 20_000, 0.25)).run(dir.resolve("constant"));
        new Simulation(spec(500, 1500, 1, 20_000, 0.25)).run(dir.resolve("one-event-records"));
        for (String file : List.of("latency.csv", "throughput.csv")) {
            assertEquals(Files.readString(dir.resolve("constant").resolve(file)),
                    Files.readString(dir.resolve("one-event-records").resolve(file)),
                    "500 + 1500 per one-event record is 2000 per event, exactly");
        }
    }

    @Test
    void anOverloadedSourceReadsMoreEventsTheMoreEachRecordCarries() throws IOException {
        // 0.25 of a core against 500 000 events/s: the source is CPU-bound whatever its records carry
        double[] perS = new double[3];
        double[] eventsPerRecord = {1, 4, 10};
        for (int i = 0; i < 3; i++) {
            Path run = dir.resolve("epr" + i);
            new Simulation(spec(500, 1500, eventsPerRecord[i], 500_000, 0.25)).run(run);
            perS[i] = sourceEventsPerS(run);
        }
        assertTrue(perS[0] < perS[1] && perS[1] < perS[2], "events read per s: " + java.util.Arrays.toString(perS));
        // CPU per event 2000 + 33 (window) against 650 + 33: about 2.98 x the events on the same CPU
        double ratio = perS[2] / perS[0];
        assertTrue(ratio > 2.5 && ratio < 3.3, "10 events a record against 1: " + ratio);
    }

    @Test
    void fewerThanOneEventPerRecordIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> spec(500, 1500, 0.5, 1000, 1));
    }
}
