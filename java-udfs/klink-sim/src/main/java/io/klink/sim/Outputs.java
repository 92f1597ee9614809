package io.klink.sim;

import io.klink.scheduler.policy.EstimatorRecord;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The run directory's tables, in the columns `klinkctl bench` writes (klinkctl/run/collectors.py and the
 * agent's scheduler.csv / estimator.csv), so compare, sweep and report read a simulated run unchanged.
 */
final class Outputs implements AutoCloseable {

    static final String LATENCY_HEADER = "run,policy,query,window_start,window_end,swm,fired_at,output_at,"
            + "swm_latency_ms,keys,events,late_dropped,warmup";
    static final String SCHEDULER_HEADER = "time,policy,tasks,running,paused,cycle_ns,decisions,why,memory_used,"
            + "cycle_cpu_ns";
    static final String THROUGHPUT_HEADER = "run,policy,time,job_vertex,query,records_in_per_s,records_out_per_s";
    static final String GENERATOR_HEADER = "second,sent,scheduled,behind_events,max_lag_ms";

    private final Path dir;
    private final String run;
    private final String policy;
    private final long warmupUntilMs;
    private final BufferedWriter latency;
    private final BufferedWriter scheduler;
    private final BufferedWriter throughput;
    private final BufferedWriter generator;
    private BufferedWriter estimator;

    Outputs(Path dir, String run, String policy, long warmupUntilMs) throws IOException {
        this.dir = dir;
        this.run = run;
        this.policy = policy;
        this.warmupUntilMs = warmupUntilMs;
        Files.createDirectories(dir);
        latency = open("latency.csv", LATENCY_HEADER);
        scheduler = open("scheduler.csv", SCHEDULER_HEADER);
        throughput = open("throughput.csv", THROUGHPUT_HEADER);
        generator = open("generator.csv", GENERATOR_HEADER);
    }

    private BufferedWriter open(String name, String header) throws IOException {
        BufferedWriter w = Files.newBufferedWriter(dir.resolve(name));
        w.write(header);
        w.newLine();
        return w;
    }

    void latencyRow(SimTask window, SimTask.Firing f, long outputAt) {
        line(latency, String.join(",", run, policy, window.info.queryId(), Long.toString(f.end() - window.spec.windowMs()),
                Long.toString(f.end()), Long.toString(f.watermark()), Long.toString(f.firedAt()),
                Long.toString(outputAt), Long.toString(outputAt - f.end()), Long.toString(f.keys()),
                Long.toString(f.events()), Long.toString(f.lateDropped()), f.end() < warmupUntilMs ? "True" : "False"));
    }

    void schedulerRow(long now, int tasks, int running, long cycleNs, String decisions, String why, double memory) {
        line(scheduler, now + "," + policy + "," + tasks + "," + running + "," + (tasks - running) + "," + cycleNs
                + "," + decisions.replace(',', '_') + "," + why.replace(',', '_') + ","
                + String.format(Locale.ROOT, "%.4f", memory) + "," + cycleNs);
    }

    void throughputRow(long now, SimTask task, double inPerS, double outPerS) {
        line(throughput, String.join(",", run, policy, Long.toString(now), task.vertex, task.info.queryId(),
                num(inPerS), num(outPerS)));
    }

    void generatorRow(long second, long sent) {
        line(generator, second + "," + sent + "," + sent + ",0,0.0");
    }

    void estimatorRows(List<EstimatorRecord> records, double confidence) {
        if (records.isEmpty()) {
            return;
        }
        try {
            if (estimator == null) {
                estimator = open("estimator.csv", EstimatorRecord.CSV_HEADER);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (EstimatorRecord r : records) {
            line(estimator, r.csvRow(confidence));
        }
    }

    void json(String name, Map<String, ?> values) throws IOException {
        Files.writeString(dir.resolve(name), SimSpec.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(values));
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static void line(BufferedWriter w, String text) {
        try {
            w.write(text);
            w.newLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        latency.close();
        scheduler.close();
        throughput.close();
        generator.close();
        if (estimator != null) {
            estimator.close();
        }
    }
}
