package io.klink.sim;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What to simulate, as klinkctl writes it (klinkctl/sim/spec.py): the run, the machine, the scheduler and
 * each query's operator graph. Every duration is in ms and every cost in ns of CPU, as the names say.
 *
 * @param startMs            epoch ms of the first generated event (the simulation's clock starts there)
 * @param durationMs         generation time; the measured span is [start + warm-up, start + duration]
 * @param drainCapMs         how long after generation the run may go on for the last windows to fire
 * @param progressAfterEndMs event time the generator's progress records cover after its last event
 * @param enforce            {@code pause}: unchosen tasks get no CPU; {@code priority}: they get what the
 *                           chosen ones leave (the agent's --enforce)
 * @param coresPerNode       CPU of each node's TaskManager in cores (a fraction for a CPU quota)
 * @param backgroundCpuFraction share of each node's CPU that threads other than the tasks use (Kafka
 *                           fetchers, garbage collection, network): the tasks never get it, the policies never see it
 * @param backgroundBurstMs  0: background work is done as it arises; > 0: in stop-the-world bursts of this much
 *                           CPU (garbage collection)
 * @param otherThreadsShare  share of the background CPU that is not the collector's but other threads' (JIT
 *                           compilers, Kafka fetchers, network): it preempts the tasks, not the scheduler thread;
 *                           0: every burst is stop-the-world
 * @param otherThreadsBurstMs those threads' work comes in bursts of this much CPU; 0: as it arises
 * @param gcPressure         K of the collector's cost of a full heap: 0 (the default) adds nothing; K > 0 adds
 *                           K u/(1 − u) of the node's other CPU as background (collector) CPU, u the live-heap
 *                           fraction the policies see, capped at {@link Node#GC_LIVE_FRACTION_CAP}
 * @param bufferTimeoutMs    Flink's output flusher (execution.buffer-timeout): > 0, what a task emits downstream
 *                           (records and watermarks) waits in its network buffer until the task's flusher runs,
 *                           every this many ms at a phase of its own (drawn from the seed); 0: it arrives at once
 * @param cpuPeriodMs        the CPU quota's period (Linux CFS bandwidth control, 100 ms); 0: the node's CPU
 *                           is shared out evenly over time
 * @param queues             {@code credit}: Flink 2.x credit-based flow control (bounded input queues, the
 *                           backlog waits in Kafka); {@code heap}: unbounded on-heap queues (Flink 1.x, the paper)
 * @param eventsPerDelay     1: every event its own network delay (as the generator); n: one per n events of an
 *                           event-time ms (same distribution, coarser arrivals, faster)
 * @param queueCapacityRecords input queue bound per task in credit mode
 * @param cycleCostNs        scheduler CPU per cycle, plus {@code cycleCostNsPerTask} per registered task
 * @param switchCostNs       CPU to resume one paused task
 * @param placement          {@code query}: each query's pipeline on one node, queries round robin; {@code split}:
 *                           a query's source on its node, the rest of its pipeline on the next node (pipelines
 *                           span nodes, each node receives records from one other node)
 * @param forwarding         each node's scheduler also sees the other parts of its queries, forwarded from their
 *                           nodes (distributed Klink, paper §4); false: each node sees its own tasks only
 */
public record SimSpec(
        String runId,
        long seed,
        long startMs,
        long durationMs,
        long warmupMs,
        long drainCapMs,
        long progressAfterEndMs,
        String policy,
        Map<String, String> policyParams,
        String enforce,
        int nodes,
        double coresPerNode,
        double backgroundCpuFraction,
        double backgroundBurstMs,
        double otherThreadsShare,
        double otherThreadsBurstMs,
        double gcPressure,
        long bufferTimeoutMs,
        long cpuPeriodMs,
        String queues,
        long queueCapacityRecords,
        long heapBytes,
        long baseHeapBytes,
        long recordBytes,
        long stateBytesPerKey,
        long cycleCostNs,
        long cycleCostNsPerTask,
        long switchCostNs,
        long watermarkIntervalMs,
        long watermarkBoundMs,
        String delay,
        String gaps,
        long ratePerQuery,
        int eventsPerDelay,
        String placement,
        boolean forwarding,
        List<Query> queries) {

    /** One query: its id, its window offset and its tasks, sources first (each task's outputs come later). */
    public record Query(String id, long windowOffsetMs, List<Task> tasks) {}

    /**
     * One task (an operator chain). {@code kind}: source, op or window. A window task has {@code windowMs},
     * {@code slideMs} (0 = tumbling) and {@code offsetMs} relative to the query's offset, and fires up to
     * {@code keys} results, each costing {@code fireCostNsPerKey}; the query's metrics window (its last)
     * records a latency row per firing. A source's {@code costNsPerRecord} is per event; it also pays
     * {@code costNsPerKafkaRecord} per Kafka record, each carrying {@code eventsPerKafkaRecord} events (the
     * generator's send bursts), so {@link #costNsPerEvent()} is what it pays per event in all. Any task also
     * pays {@code costNsPerMs} for every ms of simulated time, whatever it reads (work per unit of time: the
     * output flusher's buffers, watermarks, timers; klinkctl's --window-time-cost-ns gives it to window tasks).
     */
    public record Task(String role, String kind, double costNsPerRecord, double costNsPerKafkaRecord,
                       double eventsPerKafkaRecord, double costNsPerMs, double fireCostNsPerKey, long windowMs,
                       long slideMs,
                       long offsetMs, long keys, boolean metrics, List<Output> outputs) {

        /** CPU per record in: for a source, per event, its Kafka records' cost spread over their events. */
        public double costNsPerEvent() {
            return kind.equals("source") ? costNsPerRecord + costNsPerKafkaRecord / eventsPerKafkaRecord
                    : costNsPerRecord;
        }
    }

    /**
     * An edge to another task of the same query, by role, with the records emitted per record consumed (a window
     * too: its firings emit them, in proportion to the records each window holds; see {@link SimTask}).
     */
    public record Output(String to, double selectivity) {}

    private static final double NS_PER_MS = 1_000_000.0;

    static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
            .configure(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES, true)
            .configure(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES, false);

    public static SimSpec read(Path file) throws IOException {
        return JSON.readValue(file.toFile(), SimSpec.class).checked();
    }

    /** @throws IllegalArgumentException naming the first value out of range */
    SimSpec checked() {
        require(nodes >= 1, "nodes must be >= 1");
        require(coresPerNode > 0, "coresPerNode must be > 0");
        require(cpuPeriodMs >= 0, "cpuPeriodMs must be >= 0");
        require(backgroundBurstMs >= 0, "backgroundBurstMs must be >= 0");
        require(gcPressure >= 0, "gcPressure must be >= 0");
        require(otherThreadsShare >= 0 && otherThreadsShare <= 1, "otherThreadsShare must be in [0, 1]");
        require(otherThreadsBurstMs >= 0, "otherThreadsBurstMs must be >= 0");
        require(bufferTimeoutMs >= 0, "bufferTimeoutMs must be >= 0");
        require(backgroundCpuFraction >= 0 && backgroundCpuFraction < 1, "backgroundCpuFraction must be in [0, 1)");
        require(durationMs > 0 && warmupMs >= 0 && warmupMs < durationMs, "need 0 <= warmupMs < durationMs");
        require(queues.equals("credit") || queues.equals("heap"), "queues must be credit or heap");
        require(enforce.equals("pause") || enforce.equals("priority"), "enforce must be pause or priority");
        require(watermarkIntervalMs > 0 && watermarkBoundMs >= 0, "watermark interval must be > 0, bound >= 0");
        require(ratePerQuery > 0, "ratePerQuery must be > 0");
        require(eventsPerDelay >= 1, "eventsPerDelay must be >= 1");
        require(placement.equals("query") || placement.equals("split"), "placement must be query or split");
        require(!queries.isEmpty(), "no queries");
        for (Query q : queries) {
            require(!q.tasks().isEmpty() && q.tasks().get(0).kind().equals("source"),
                    "query " + q.id() + ": the first task must be its source");
            for (Task t : q.tasks()) {
                require(t.costNsPerRecord() > 0, q.id() + "/" + t.role() + ": costNsPerRecord must be > 0");
                require(t.costNsPerKafkaRecord() >= 0 && t.eventsPerKafkaRecord() >= 1,
                        q.id() + "/" + t.role() + ": need costNsPerKafkaRecord >= 0, eventsPerKafkaRecord >= 1");
                require(t.costNsPerMs() >= 0 && t.costNsPerMs() < NS_PER_MS,
                        q.id() + "/" + t.role() + ": costNsPerMs must be in [0, 1 000 000)");
                require(!t.kind().equals("window") || t.windowMs() > 0, q.id() + "/" + t.role() + ": windowMs");
            }
        }
        return this;
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalArgumentException("invalid simulation spec: " + what);
        }
    }

    /**
     * A task's node: queries are spread over the nodes round robin; with the split placement only the source
     * stays on its query's node and the rest of the pipeline runs on the next one.
     */
    int nodeOf(int queryIndex, boolean source) {
        int home = queryIndex % nodes;
        return placement.equals("split") && !source ? (home + 1) % nodes : home;
    }
}
