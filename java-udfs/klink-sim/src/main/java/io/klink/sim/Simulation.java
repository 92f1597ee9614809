package io.klink.sim;

import io.klink.generator.DelayModel;
import io.klink.generator.DelayModels;
import io.klink.generator.Gaps;
import io.klink.generator.Schedule;
import io.klink.generator.SeedStreams;
import io.klink.scheduler.SchedulingPolicy;
import io.klink.scheduler.TaskInfo;
import io.klink.scheduler.policy.Policies;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A deterministic simulation of a bench run: the generator's events arrive in each query's Kafka backlog, the
 * nodes' tasks process them one ms at a time, and each node's scheduler runs the unchanged policy classes of
 * klink-scheduler every r ms. Same spec and seed, same files, bit for bit.
 */
public final class Simulation {

    private final SimSpec spec;
    private final List<Node> nodes = new ArrayList<>();
    private final List<SimTask> sources = new ArrayList<>();
    private final List<SimTask> metricWindows = new ArrayList<>();
    private final List<SimTask> allTasks = new ArrayList<>();
    private final List<Arrivals> arrivals = new ArrayList<>();
    private final Forwarding forwarding = new Forwarding();
    private final List<SimTask> buffered = new ArrayList<>();  // tasks whose outputs wait for their flusher
    private final SplittableRandom flushPhases;

    public Simulation(SimSpec spec) {
        this.spec = spec;
        this.flushPhases = new SplittableRandom(spec.seed() ^ 0x5EEDF1A5L);
        for (int n = 0; n < spec.nodes(); n++) {
            nodes.add(new Node(spec, policy(), maxRunning(), n, spec.forwarding() ? forwarding : null));
        }
        DelayModel delay = DelayModels.parse(spec.delay());
        Schedule schedule = new Schedule(spec.ratePerQuery());
        Gaps gaps = spec.gaps() == null || spec.gaps().isBlank() ? Gaps.regular(schedule) : Gaps.parse(spec.gaps(), schedule);
        SeedStreams seeds = SeedStreams.of(spec.seed(), spec.queries().size());
        for (int q = 0; q < spec.queries().size(); q++) {
            build(spec.queries().get(q), q);
            arrivals.add(new Arrivals(spec.startMs(), spec.durationMs(), delay, gaps, seeds.delays[q], seeds.gaps[q],
                    spec.progressAfterEndMs(), spec.eventsPerDelay()));
        }
    }

    /** A fresh policy per node, as each TaskManager's agent makes its own; null for one that never pauses. */
    private SchedulingPolicy policy() {
        Map<String, String> params = new HashMap<>(spec.policyParams());
        params.putIfAbsent("cpu", Double.toString(spec.coresPerNode()));
        SchedulingPolicy p = Policies.create(spec.policy(), params);
        return p.neverPauses() ? null : p;
    }

    /** C: the run's, or the cores the TaskManager's JVM would see (the agent's default). */
    private int maxRunning() {
        String c = spec.policyParams().get("C");
        return c != null ? Integer.parseInt(c.trim()) : Math.max(1, (int) Math.ceil(spec.coresPerNode()));
    }

    private void build(SimSpec.Query query, int queryIndex) {
        Map<String, SimTask> byRole = new LinkedHashMap<>();
        Map<String, Integer> stage = new HashMap<>();
        for (SimSpec.Task t : query.tasks()) {
            int depth = stage.getOrDefault(t.role(), 0);
            boolean source = t.kind().equals("source");
            boolean window = t.kind().equals("window");
            String id = query.id() + "/" + t.role();
            TaskInfo info = new TaskInfo(id, query.id(), id, 0, depth, source, window, t.metrics(), List.of());
            SimTask task = new SimTask(info, query.id() + ":" + t.role(), id, spec.nodeOf(queryIndex, source), t,
                    query.windowOffsetMs());
            byRole.put(t.role(), task);
            for (SimSpec.Output o : t.outputs()) {
                stage.merge(o.to(), depth + 1, Math::max);
            }
        }
        for (SimSpec.Task t : query.tasks()) {
            for (SimSpec.Output o : t.outputs()) {
                SimTask target = byRole.get(o.to());
                if (target == null) {
                    throw new IllegalArgumentException("invalid simulation spec: query " + query.id() + " task "
                            + t.role() + " outputs to unknown task " + o.to());
                }
                byRole.get(t.role()).connect(target, o.selectivity());
            }
        }
        for (SimTask task : byRole.values()) {
            nodes.get(task.node).add(task);
            if (spec.bufferTimeoutMs() > 0 && !task.targets.isEmpty()) {
                task.bufferOutputs(flushPhases.nextLong(spec.bufferTimeoutMs()));
                buffered.add(task);
            }
            forwarding.register(task);
            allTasks.add(task);
            if (task.isSource()) {
                sources.add(task);
            }
            if (task.spec.metrics()) {
                metricWindows.add(task);
            }
        }
    }

    /** Every task of every query (for tests: their counters after {@link #run}). */
    List<SimTask> tasks() {
        return allTasks;
    }

    /** Runs the simulation and writes the run directory; returns what sim.json says. */
    public Map<String, Object> run(Path dir) throws IOException {
        long wallStart = System.nanoTime();
        long start = spec.startMs();
        long generationEnd = start + spec.durationMs();
        long cap = generationEnd + spec.drainCapMs();
        long cycleMs = nodes.get(0).cycleMs();
        long now = start;
        String stoppedBy = "drain cap reached";
        long[] lastIn = new long[allTasks.size()];
        long[] lastOut = new long[allTasks.size()];
        long generatedBefore = 0;
        try (Outputs out = new Outputs(dir, spec.runId(), spec.policy(), start + spec.warmupMs())) {
            for (; now < cap; now++) {
                for (int q = 0; q < sources.size(); q++) {
                    arrivals.get(q).deliver(now, sources.get(q).queue);
                }
                for (SimTask t : buffered) {
                    if ((now - start) % spec.bufferTimeoutMs() == t.flushPhaseMs) {
                        t.flushOutputs(now);
                    }
                }
                boolean cycle = (now - start) % cycleMs == 0;
                boolean watermarkTick = (now - start) % spec.watermarkIntervalMs() == 0;
                boolean periodStart = spec.cpuPeriodMs() > 0 && (now - start) % spec.cpuPeriodMs() == 0;
                for (Node node : nodes) {
                    node.cycleDue |= cycle && node.scheduled();
                    node.tick(now, periodStart, watermarkTick, out);
                }
                if ((now - start) % 1000 == 999) {
                    throughput(now + 1, out, lastIn, lastOut);
                    if (now < generationEnd) {
                        generatedBefore = generatorSecond((now - start) / 1000, out, generatedBefore);
                    }
                }
                if (now >= generationEnd && (now - start) % 100 == 0 && everyWindowFired(generationEnd)) {
                    stoppedBy = "every expected window fired";
                    break;
                }
            }
            for (Node node : nodes) {
                node.finish(out);
            }
            return finish(out, now, generationEnd, stoppedBy, System.nanoTime() - wallStart);
        }
    }

    private boolean everyWindowFired(long generationEnd) {
        for (SimTask w : metricWindows) {
            if (w.watermark < generationEnd - 1 || !w.idle()) {
                return false;
            }
        }
        return true;
    }

    private void throughput(long now, Outputs out, long[] lastIn, long[] lastOut) {
        for (int i = 0; i < allTasks.size(); i++) {
            SimTask t = allTasks.get(i);
            out.throughputRow(now, t, t.recordsIn - lastIn[i], t.recordsOut - lastOut[i]);
            lastIn[i] = t.recordsIn;
            lastOut[i] = t.recordsOut;
        }
    }

    /** generator.csv's row of one second: the simulated generator is on schedule by construction. */
    private long generatorSecond(long second, Outputs out, long generatedBefore) {
        long generated = generated();
        out.generatorRow(second, generated - generatedBefore);
        return generated;
    }

    /** Events generated so far, all queries. */
    private long generated() {
        long generated = 0;
        for (Arrivals a : arrivals) {
            generated += a.generated();
        }
        return generated;
    }

    private Map<String, Object> finish(Outputs out, long now, long generationEnd, String stoppedBy, long wallNs)
            throws IOException {
        long generated = generated();
        long backlog = 0;
        for (SimTask s : sources) {
            backlog += s.queue.records();
        }
        long rate = spec.ratePerQuery() * spec.queries().size();
        Map<String, Object> generator = new LinkedHashMap<>();
        generator.put("events_sent", generated);
        generator.put("events_scheduled", generated);
        generator.put("target_rate", rate);
        generator.put("achieved_rate", (double) rate);
        generator.put("behind_events", 0);
        generator.put("behind_fraction", 0.0);
        generator.put("fell_behind", false);
        generator.put("lag_p99_ms", 0.0);
        generator.put("max_lag_ms", 0.0);
        generator.put("status", "completed");
        out.json("generator-summary.json", generator);
        Map<String, Object> drain = new LinkedHashMap<>();
        drain.put("waited_ms", Math.max(0, now - generationEnd));
        drain.put("stopped_by", stoppedBy);
        drain.put("cap_ms", spec.drainCapMs());
        drain.put("backlog_events_left", backlog);
        drain.put("complete", stoppedBy.startsWith("every"));
        out.json("drain.json", drain);
        long cycles = 0;
        double gcNs = 0;
        for (Node node : nodes) {
            cycles += node.cycles;
            gcNs += node.gcNs;
        }
        Map<String, Object> sim = new LinkedHashMap<>();
        sim.put("simulated_events", generated);
        sim.put("simulated_ms", now - spec.startMs());
        sim.put("wall_ms", wallNs / 1e6);
        sim.put("events_per_wall_s", generated / (wallNs / 1e9));
        sim.put("scheduler_cycles", cycles);
        sim.put("late_dropped", allTasks.stream().mapToLong(t -> t.lateDropped).sum());
        sim.put("gc_pressure_cpu_ms", gcNs / 1e6);
        out.json("sim.json", sim);
        return sim;
    }
}
