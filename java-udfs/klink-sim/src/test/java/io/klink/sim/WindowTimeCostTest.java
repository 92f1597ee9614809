package io.klink.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A task's cost per ms of simulated time (klinkctl's --window-time-cost-ns, for window tasks). */
class WindowTimeCostTest {

    @TempDir
    Path dir;

    /** One YSB-shaped query: the source at perEvent ns, the window at perRecord ns per record plus perMs a ms. */
    static SimSpec spec(double perEvent, double perRecord, double perMs, long rate, double cores) {
        return SimulationTest.ysbShaped(rate, cores, perEvent, 0, 1, perRecord, perMs);
    }

    static SimTask window(Simulation sim) {
        return sim.tasks().stream().filter(SimTask::isWindow).findFirst().orElseThrow();
    }

    @Test
    void aWindowPaysItsCostPerMsForEverySimulatedMsOnTopOfItsRecords() throws IOException {
        Simulation without = new Simulation(spec(1000, 500, 0, 2000, 1));
        Simulation with = new Simulation(spec(1000, 500, 20_000, 2000, 1));
        without.run(dir.resolve("without"));
        long ms = ((Number) with.run(dir.resolve("with")).get("simulated_ms")).longValue();
        SimTask a = window(without);
        SimTask b = window(with);
        assertEquals(a.recordsIn, b.recordsIn, "a light load reads every record either way");
        // the same records and firings; the difference is 20 µs for each ms the run lasted (its last ms + 1)
        double perMs = (b.cpuNs - a.cpuNs) / (ms + 1);
        assertEquals(20_000, perMs, 20_000 * 0.01, "window CPU per simulated ms beyond its records': " + perMs);
        assertEquals(0.0, window(without).spec.costNsPerMs());
    }

    @Test
    void theTimeCostTakesCpuFromRecordsWhenTheWindowIsTheBottleneck() throws IOException {
        // the window on a core it cannot keep up with: 20 µs a record against 100 records/ms offered
        double[] perS = new double[2];
        double[] perMs = {0, 300_000};
        for (int i = 0; i < 2; i++) {
            Path run = dir.resolve("load" + i);
            new Simulation(spec(10, 20_000, perMs[i], 300_000, 1)).run(run);
            perS[i] = SimulationTest.rows(run.resolve("throughput.csv")).stream()
                    .filter(r -> r[3].contains("window")).mapToDouble(r -> Double.parseDouble(r[5])).max().orElseThrow();
        }
        // 0.3 of each ms goes to the per-time work: about 0.7 of the records, at most
        double ratio = perS[1] / perS[0];
        assertTrue(ratio > 0.6 && ratio < 0.75, "records per s with 0.3 ms a ms of time cost against none: " + ratio);
    }

    @Test
    void aTimeCostOfAWholeMsOrMoreIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> spec(1000, 500, 1_000_000, 1000, 1).checked());
        assertThrows(IllegalArgumentException.class, () -> spec(1000, 500, -1, 1000, 1).checked());
    }
}
