package io.klink.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulationTest {

    @TempDir
    Path dir;

    /** YSB-shaped queries: a source keeping one in three records, a 1 s tumbling window of 10 keys. */
    static SimSpec spec(String policy, int queries, long rate, double cores, String queues, String delay) {
        List<SimSpec.Query> qs = new ArrayList<>();
        for (int i = 0; i < queries; i++) {
            qs.add(new SimSpec.Query(String.format("q%02d", i), 137L * i % 1000, List.of(
                    new SimSpec.Task("source", "source", 2000, 0, 1, 0, 0, 0, 0, 0, 0, false,
                            List.of(new SimSpec.Output("window", 1.0 / 3))),
                    new SimSpec.Task("window", "window", 2000, 0, 1, 0, 1000, 1000, 0, 0, 10, true, List.of()))));
        }
        return new SimSpec("t-" + policy, 7, 1_800_000_000_000L, 8000, 2000, 20_000, 450, policy,
                Map.of("r", "100"), "pause", 1, cores, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, queues, 1000, 64L << 20, 8L << 20, 200, 100,
                50_000, 10_000, 0, 100, 200, delay, null, rate, 1, "query", true, qs).checked();
    }

    static List<String[]> rows(Path file) throws IOException {
        List<String[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(file).subList(1, Files.readAllLines(file).size())) {
            out.add(line.split(","));
        }
        return out;
    }

    static double meanLatency(Path dir) throws IOException {
        return rows(dir.resolve("latency.csv")).stream().filter(r -> r[12].equals("False"))
                .mapToLong(r -> Long.parseLong(r[8])).average().orElseThrow();
    }

    @Test
    void sameSpecAndSeedGiveTheSameFilesBitForBit() throws IOException {
        SimSpec s = spec("klink", 4, 2000, 0.5, "credit", "uniform:0-300ms");
        new Simulation(s).run(dir.resolve("a"));
        new Simulation(s).run(dir.resolve("b"));
        for (String file : List.of("latency.csv", "scheduler.csv", "throughput.csv")) {
            assertEquals(Files.readString(dir.resolve("a").resolve(file)), Files.readString(dir.resolve("b").resolve(file)));
        }
    }

    @Test
    void atLightLoadEveryWindowFiresAboutBoundPlusWatermarkPeriodAfterItsEnd() throws IOException {
        Map<String, Object> sim = new Simulation(spec("default", 2, 1000, 1.0, "credit", "const:0ms")).run(dir);
        long generationEnd = 1_800_000_008_000L;
        long measured = rows(dir.resolve("latency.csv")).stream().filter(r -> Long.parseLong(r[4]) <= generationEnd)
                .count();
        assertEquals(2 * 8, measured, "8 s of 1 s windows per query, the last fired by the progress records");
        double mean = meanLatency(dir);
        assertTrue(mean >= 200 && mean <= 200 + 100 + 20, "bound 200 ms + up to one 100 ms watermark period: " + mean);
        assertEquals(16_000L, sim.get("simulated_events"));
        List<String[]> generator = rows(dir.resolve("generator.csv"));
        assertEquals(8, generator.size(), "one row per second of generation");
        assertTrue(generator.stream().allMatch(r -> r[1].equals("2000") && r[2].equals("2000")),
                "2 queries x 1000 events/s sent each second, on schedule");
        assertEquals("every expected window fired", Files.readString(dir.resolve("drain.json")).lines()
                .filter(l -> l.contains("stopped_by")).findFirst().orElseThrow().split("\"")[3]);
    }

    @Test
    void theOutputFlusherHoldsTheSweepingWatermarkUpToOneBufferTimeout() throws IOException {
        SimSpec at = spec("default", 2, 1000, 1.0, "credit", "const:0ms");
        double atOnce = meanLatencyOf(at, "at-once");
        SimSpec flushed = with(at, Map.of("bufferTimeoutMs", 100));
        double held = meanLatencyOf(flushed, "flushed");
        assertTrue(held > atOnce + 10 && held <= atOnce + 100, "one exchange, flushed every 100 ms: " + held + " vs "
                + atOnce);
        new Simulation(flushed).run(dir.resolve("again"));
        assertEquals(Files.readString(dir.resolve("flushed").resolve("latency.csv")),
                Files.readString(dir.resolve("again").resolve("latency.csv")), "the flushers' phases come from the seed");
    }

    @Test
    void otherThreadsBurstsDelayTheTasksButNotTheSchedulerCycles() throws IOException {
        SimSpec base = with(spec("rr", 4, 1000, 0.25, "credit", "uniform:0-300ms"),
                Map.of("backgroundCpuFraction", 0.4, "backgroundBurstMs", 40.0, "cpuPeriodMs", 0));
        new Simulation(base).run(dir.resolve("stw"));
        SimSpec other = with(base, Map.of("otherThreadsShare", 1.0, "otherThreadsBurstMs", 40.0));
        new Simulation(other).run(dir.resolve("other"));
        assertTrue(maxCycleInterval(dir.resolve("stw")) >= 150, "a 40 ms burst on a quarter core stops the cycles for 160 ms");
        assertEquals(100, maxCycleInterval(dir.resolve("other")), "bursts of other threads leave them on time");
    }

    private static long maxCycleInterval(Path run) throws IOException {
        List<String[]> cycles = rows(run.resolve("scheduler.csv"));
        long max = 0;
        for (int i = 1; i < cycles.size(); i++) {
            max = Math.max(max, Long.parseLong(cycles.get(i)[0]) - Long.parseLong(cycles.get(i - 1)[0]));
        }
        return max;
    }

    @Test
    void eachWindowCountsTheViewsItsQueryGenerated() throws IOException {
        new Simulation(spec("default", 1, 3000, 1.0, "credit", "const:0ms")).run(dir);
        for (String[] row : rows(dir.resolve("latency.csv"))) {
            assertEquals(1000, Long.parseLong(row[10]), "3000 events/s, one in three kept, 1 s windows");
            assertEquals(10, Long.parseLong(row[9]));
        }
    }

    @Test
    void aWindowsOutputEdgeGivesItsSelectivityPerRecordInWhateverItsKeys() throws IOException {
        // LRB-shaped: a sliding 2 s / 1 s window of 10 keys sends 0.1 results per record in to a 1 s metrics window
        List<SimSpec.Query> chain = List.of(new SimSpec.Query("q00", 0, List.of(
                new SimSpec.Task("source", "source", 2000, 0, 1, 0, 0, 0, 0, 0, 0, false,
                        List.of(new SimSpec.Output("stats", 1.0))),
                new SimSpec.Task("stats", "window", 2000, 0, 1, 0, 1000, 2000, 1000, 0, 10, false,
                        List.of(new SimSpec.Output("toll", 0.1))),
                new SimSpec.Task("toll", "window", 2000, 0, 1, 0, 1000, 1000, 0, 0, 10, true, List.of()))));
        SimSpec s = with(spec("default", 1, 3000, 1.0, "credit", "const:0ms"), Map.of("queries", chain));
        new Simulation(s).run(dir);
        long start = 1_800_000_000_000L;
        List<String[]> steady = rows(dir.resolve("latency.csv")).stream()
                .filter(r -> Long.parseLong(r[3]) >= start + 2000 && Long.parseLong(r[4]) <= start + 8000).toList();
        assertEquals(6, steady.size());
        for (String[] row : steady) {
            // each firing: 2 s x 3000 records x 0.1 x slide / size = 300, the 3000 records of one slide x 0.1
            assertEquals(300, Long.parseLong(row[10]), 1, "records from one stats firing: " + String.join(",", row));
        }
    }

    @Test
    void overloadMakesLatencyGrowAndThePausingPoliciesRunWithinTheirChoice() throws IOException {
        double light = meanLatencyOf(spec("default", 4, 1000, 1.0, "credit", "uniform:0-300ms"), "light");
        double heavy = meanLatencyOf(spec("default", 4, 1000, 0.008, "credit", "uniform:0-300ms"), "heavy");
        assertTrue(heavy > 2 * light, "0.008 of a core for 4 x 1000 events/s at 2.7 us each: " + heavy + " vs " + light);
        new Simulation(spec("rr", 4, 1000, 0.5, "credit", "uniform:0-300ms")).run(dir.resolve("rr"));
        for (String[] row : rows(dir.resolve("rr").resolve("scheduler.csv"))) {
            assertTrue(Integer.parseInt(row[3]) <= 2, "C = 1 pipeline of 2 tasks at a time: " + String.join(",", row));
        }
    }

    private double meanLatencyOf(SimSpec s, String name) throws IOException {
        new Simulation(s).run(dir.resolve(name));
        return meanLatency(dir.resolve(name));
    }

    @Test
    void heapQueuesHoldTheBacklogInTheTaskManagerAndCreditQueuesLeaveItInKafka() throws IOException {
        // a slow window: its input queue is where a backlog builds
        SimSpec base = spec("klink", 2, 6000, 0.05, "credit", "const:0ms");
        List<SimSpec.Query> slow = base.queries().stream().map(q -> new SimSpec.Query(q.id(), q.windowOffsetMs(),
                List.of(q.tasks().get(0), new SimSpec.Task("window", "window", 40_000, 0, 1, 0, 1000, 1000, 0, 0, 10, true,
                        List.of())))).toList();
        double credit = peakMemory(withQueues(base, slow, "credit"), "credit");
        double heap = peakMemory(withQueues(base, slow, "heap"), "heap");
        assertTrue(heap > credit + 0.05, "heap " + heap + " vs credit " + credit);
    }

    private static SimSpec withQueues(SimSpec s, List<SimSpec.Query> queries, String queues) {
        return with(s, Map.of("queries", queries, "queues", queues));
    }

    /** {@code s} on {@code nodes} nodes of {@code cores} each, placed and forwarding as given. */
    private static SimSpec distributed(SimSpec s, int nodes, double cores, String placement, boolean forwarding) {
        return with(s, Map.of("nodes", nodes, "coresPerNode", cores, "placement", placement, "forwarding", forwarding));
    }


    /**
     * One YSB-shaped query: a source (sourcePerEvent ns per event plus sourcePerKafkaRecord per Kafka record of
     * eventsPerKafkaRecord events) sending a third of its events to a 1 s window of 10 keys (windowPerRecord ns per
     * record plus windowPerMs per simulated ms).
     */
    static SimSpec ysbShaped(long rate, double cores, double sourcePerEvent, double sourcePerKafkaRecord,
                             double eventsPerKafkaRecord, double windowPerRecord, double windowPerMs) {
        SimSpec base = spec("default", 1, rate, cores, "credit", "uniform:0-300ms");
        List<SimSpec.Query> queries = List.of(new SimSpec.Query("q00", 0, List.of(
                new SimSpec.Task("source", "source", sourcePerEvent, sourcePerKafkaRecord, eventsPerKafkaRecord, 0, 0,
                        0, 0, 0, 0, false, List.of(new SimSpec.Output("window", 1.0 / 3))),
                new SimSpec.Task("window", "window", windowPerRecord, 0, 1, windowPerMs, 1000, 1000, 0, 0, 10, true,
                        List.of()))));
        return with(base, Map.of("queries", queries));
    }
    /** {@code s} with some of its fields replaced, by name (as in the spec's JSON). */
    static SimSpec with(SimSpec s, Map<String, Object> fields) {
        Map<String, Object> json = new HashMap<>(SimSpec.JSON.convertValue(s, new TypeReference<Map<String, Object>>() {}));
        json.putAll(fields);
        return SimSpec.JSON.convertValue(json, SimSpec.class).checked();
    }

    @Test
    void splitPipelinesSpanTwoNodesAndForwardingGivesTheSourcesNodeItsQuerysDeadline() throws IOException {
        SimSpec base = spec("klink", 4, 3000, 0.5, "credit", "uniform:0-300ms");
        new Simulation(distributed(base, 2, 0.25, "split", true)).run(dir.resolve("fwd"));
        new Simulation(distributed(base, 2, 0.25, "split", false)).run(dir.resolve("alone"));
        // node 0 holds the sources of q00 and q02 and the windows of q01 and q03; its rows come first each cycle
        List<String> alone = nodeZeroSlacks(dir.resolve("alone"), "q00");
        List<String> forwarded = nodeZeroSlacks(dir.resolve("fwd"), "q00");
        assertTrue(alone.stream().allMatch("0"::equals), "alone, a source without its window has no deadline: " + alone);
        assertTrue(forwarded.stream().filter(v -> !v.equals("0")).count() > forwarded.size() / 2,
                "forwarded, the window's deadline ranks the source: " + forwarded);
        List<String[]> predictions = rows(dir.resolve("fwd").resolve("estimator.csv"));
        long distinct = predictions.stream().map(r -> r[0] + r[2] + r[4]).distinct().count();
        assertEquals(predictions.size(), distinct, "each SWM scored once, by the node of its query's window");
        assertTrue(predictions.size() > 0);
    }

    /** Slack of {@code query} in node 0's scheduler rows (the first row of each cycle). */
    private static List<String> nodeZeroSlacks(Path run, String query) throws IOException {
        List<String> out = new ArrayList<>();
        String lastTime = "";
        for (String[] row : rows(run.resolve("scheduler.csv"))) {
            if (!row[0].equals(lastTime)) {
                for (String part : row[7].replaceAll("^[a-z]+:", "").split(";")) {
                    if (part.startsWith(query + "=")) {
                        out.add(part.substring(query.length() + 1));
                    }
                }
            }
            lastTime = row[0];
        }
        return out;
    }

    private double peakMemory(SimSpec s, String name) throws IOException {
        new Simulation(s).run(dir.resolve(name));
        return rows(dir.resolve(name).resolve("scheduler.csv")).stream().mapToDouble(r -> Double.parseDouble(r[8]))
                .max().orElseThrow();
    }

    @Test
    void aSpecWithoutASourceFirstIsRefusedByName() {
        SimSpec s = spec("default", 1, 1000, 1.0, "credit", "const:0ms");
        List<SimSpec.Query> bad = List.of(new SimSpec.Query("q00", 0, List.of(s.queries().get(0).tasks().get(1))));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> withQueues(s, bad, "credit").checked());
        assertTrue(e.getMessage().contains("q00: the first task must be its source"), e.getMessage());
    }
}
