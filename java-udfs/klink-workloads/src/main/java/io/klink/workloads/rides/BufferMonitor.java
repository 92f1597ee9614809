package io.klink.workloads.rides;

import io.klink.workloads.common.QueryPipelines;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * The controller loop (seed adcom-edbt21.txt §3.2, §4.1: "the PI controller and the actuator use Flink's job
 * monitoring API to monitor network buffer usage of AdCom"): once a period it reads every combiner instance's
 * output-buffer utilisation (Flink's {@code Shuffle.Netty.Output.Buffers.outPoolUsage}) from the JobManager's REST
 * API, runs the {@link PiController} and publishes the interval through {@link CombinerControl}. One loop per
 * query, a daemon thread of the combiner's subtask 0, so one controller drives all instances. With a fixed
 * interval (local-global) it only records the utilisation (mode {@code fixed}).
 */
public final class BufferMonitor implements Runnable {

    public static final String METRIC = "Shuffle.Netty.Output.Buffers.outPoolUsage";

    private final String metricsUrl;
    private final int instances;
    private final long periodMs;
    private final PiController controller;  // null: record only
    private final CombinerControl control;
    private final Path runDir;
    private final String queryId;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private volatile boolean running = true;

    public BufferMonitor(String restUrl, String jobId, String vertexId, int instances, long periodMs,
                         PiController controller, Path runDir, String queryId) {
        StringJoiner get = new StringJoiner(",");
        for (int i = 0; i < instances; i++) {
            get.add(i + "." + METRIC);
        }
        this.metricsUrl = restUrl + "/jobs/" + jobId + "/vertices/" + vertexId + "/metrics?get=" + get;
        this.instances = instances;
        this.periodMs = periodMs;
        this.controller = controller;
        this.control = new CombinerControl(runDir, queryId);
        this.runDir = runDir;
        this.queryId = queryId;
    }

    public void stop() {
        running = false;
    }

    @Override
    public void run() {
        long period = 0;
        while (running) {
            try {
                Thread.sleep(periodMs);
                double[] rho = utilisation();
                if (rho == null) {
                    continue;  // the JobManager has not fetched the metrics yet
                }
                period++;
                PiController.Decision decision;
                if (controller != null) {
                    decision = controller.update(rho);
                    control.publish(period, decision.intervalMs());
                } else {
                    decision = new PiController.Decision(average(rho), max(rho) >= PiController.SATURATED,
                            Double.NaN, -1);
                }
                CombinerControl.log(runDir, System.currentTimeMillis(), queryId, period, rho, decision,
                        controller != null ? "adcom" : "fixed");
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                // a slow JobManager skips a period; the next one reads again
            }
        }
    }

    /** Every instance's outPoolUsage, or null until the REST API has all of them. */
    double[] utilisation() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(metricsUrl))
                .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            return null;
        }
        Map<String, Double> values = new HashMap<>();
        for (JsonNode metric : QueryPipelines.JSON.readTree(response.body())) {
            values.put(metric.path("id").asText(), metric.path("value").asDouble(Double.NaN));
        }
        double[] rho = new double[instances];
        for (int i = 0; i < instances; i++) {
            Double value = values.get(i + "." + METRIC);
            if (value == null || value.isNaN()) {
                return null;
            }
            rho[i] = Math.max(0, Math.min(1, value));
        }
        return rho;
    }

    private static double average(double[] xs) {
        double sum = 0;
        for (double x : xs) {
            sum += x;
        }
        return sum / xs.length;
    }

    private static double max(double[] xs) {
        double m = 0;
        for (double x : xs) {
            m = Math.max(m, x);
        }
        return m;
    }
}
