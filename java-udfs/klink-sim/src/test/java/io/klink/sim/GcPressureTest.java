package io.klink.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The collector's cost of a full heap ({@code gcPressure}, docs/simulator.md "The cost of a full heap"). */
class GcPressureTest {

    /**
     * SHA-256 of {@link #fillingHeap}'s (with a 64 MiB heap) latency, scheduler, throughput and estimator files under Klink, computed with
     * the simulator before the gcPressure model existed (commit dc270205): K = 0 must change nothing.
     */
    private static final String BEFORE_THE_MODEL = "9afe43206bbb6b929a13797325b7167c9da7b753c8e99f96ab5ce74de95ba5c5";

    @TempDir
    Path dir;

    /**
     * Two queries whose window costs 20 x its source per record on 0.05 of a core: with heap
     * queues the 4 MiB heap is full after about 3 s.
     */
    static SimSpec fillingHeap(String policy, String queues, double gcPressure) {
        SimSpec base = SimulationTest.spec(policy, 2, 6000, 0.05, queues, "const:0ms");
        List<SimSpec.Query> slow = base.queries().stream().map(q -> new SimSpec.Query(q.id(), q.windowOffsetMs(),
                List.of(q.tasks().get(0), new SimSpec.Task("window", "window", 40_000, 0, 1, 0, 1000, 1000, 0, 0, 10, true,
                        List.of())))).toList();
        return SimulationTest.with(base, Map.of("queries", slow, "gcPressure", gcPressure, "heapBytes", 4L << 20,
                "baseHeapBytes", 1L << 20));
    }

    private static String digest(Path run) throws IOException, NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (String file : List.of("latency.csv", "scheduler.csv", "throughput.csv", "estimator.csv")) {
            sha.update(Files.readAllBytes(run.resolve(file)));
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** Records the windows took while the generator ran (throughput.csv): the bottleneck here. */
    private double windowRecords(Path run) throws IOException {
        long generationEnd = 1_800_000_008_000L;
        return SimulationTest.rows(run.resolve("throughput.csv")).stream()
                .filter(r -> r[3].endsWith("/window") && Long.parseLong(r[2]) <= generationEnd)
                .mapToDouble(r -> Double.parseDouble(r[5])).sum();
    }

    private Map<String, Object> run(SimSpec s, String name) throws IOException {
        return new Simulation(s).run(dir.resolve(name));
    }

    @Test
    void withoutGcPressureTheFilesAreTheSameAsBeforeTheModel() throws Exception {
        // the 64 MiB heap of the spec the digest was taken on, before this test's heap was made smaller
        SimSpec s = SimulationTest.with(fillingHeap("klink", "heap", 0), Map.of("heapBytes", 64L << 20,
                "baseHeapBytes", 8L << 20));
        Map<String, Object> sim = run(s, "k0");
        assertEquals(BEFORE_THE_MODEL, digest(dir.resolve("k0")));
        assertEquals(0.0, sim.get("gc_pressure_cpu_ms"));
    }

    @Test
    void aFillingHeapSlowsDefaultDownAndCostsMoreTheFullerItIs() throws IOException {
        run(fillingHeap("default", "heap", 0), "k0");
        Map<String, Object> k = run(fillingHeap("default", "heap", 0.1), "k");
        Map<String, Object> credit = run(fillingHeap("default", "credit", 0.1), "credit");
        double free = windowRecords(dir.resolve("k0"));
        double taxed = windowRecords(dir.resolve("k"));
        assertTrue(taxed < 0.8 * free, "K = 0.1 on a heap filling past its size: " + taxed + " vs " + free);
        double heapGc = (double) k.get("gc_pressure_cpu_ms");
        double creditGc = (double) credit.get("gc_pressure_cpu_ms");
        assertTrue(heapGc > 5 * creditGc && creditGc > 0, "heap " + heapGc + " ms vs credit " + creditGc + " ms");
    }

    @Test
    void aNegativeGcPressureIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> fillingHeap("default", "heap", -0.1));
        assertTrue(e.getMessage().contains("gcPressure must be >= 0"), e.getMessage());
    }
}
