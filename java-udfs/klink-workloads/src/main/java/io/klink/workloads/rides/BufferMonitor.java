package io.klink.workloads.rides;

import io.klink.workloads.common.QueryPipelines;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * The controller loop (seed adcom-edbt21.txt §3.2, §4.1: "the PI controller and the actuator use Flink's job
 * monitoring API to monitor network buffer usage of AdCom"): once a period it reads every combiner instance's
 * output-buffer utilisation (Flink's {@code Shuffle.Netty.Output.Buffers.outPoolUsage}) from the JobManager's REST
 * API, runs the {@link PiController} and sends the interval to every instance through klinkctl's control channel
 * ({@link CombinerChannel}), with the period's row of combiner.csv. One loop per query, a daemon thread of the
 * combiner's subtask 0, so one controller drives all instances. With a fixed interval (local-global) it only
 * records the utilisation (mode {@code fixed}). Rows klinkctl could not take yet (its channel opens once the job
 * runs) are sent with the next period's, up to {@value #MAX_PENDING_ROWS}.
 */
public final class BufferMonitor implements Runnable {

    public static final String METRIC = "Shuffle.Netty.Output.Buffers.outPoolUsage";
    static final int MAX_PENDING_ROWS = 3600;

    private final String metricsUrl;
    private final int instances;
    private final long periodMs;
    private final PiController controller;  // null: record only
    private final CombinerChannel channel;
    private final String queryId;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<String> pendingRows = new ArrayList<>();

    public BufferMonitor(String restUrl, String jobId, String vertexId, int instances, long periodMs,
                         PiController controller, CombinerChannel channel, String queryId) {
        StringJoiner get = new StringJoiner(",");
        for (int i = 0; i < instances; i++) {
            get.add(i + "." + METRIC);
        }
        this.metricsUrl = restUrl + "/jobs/" + jobId + "/vertices/" + vertexId + "/metrics?get=" + get;
        this.instances = instances;
        this.periodMs = periodMs;
        this.controller = controller;
        this.channel = channel;
        this.queryId = queryId;
    }

    /** Until interrupted (the operator's close). */
    @Override
    public void run() {
        long period = 0;
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(periodMs);
                double[] rho = utilisation();
                if (rho == null) {
                    continue;  // the JobManager has not fetched the metrics yet
                }
                period++;
                record(period, rho, decide(period, rho));
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                // a slow JobManager skips a period; the next one reads again
            }
        }
    }

    /** The controller's decision, sent to the instances; with a fixed λ only the utilisation. */
    private PiController.Decision decide(long period, double[] rho) throws InterruptedException {
        if (controller == null) {
            return new PiController.Decision(average(rho), max(rho) >= PiController.SATURATED, Double.NaN, -1);
        }
        PiController.Decision decision = controller.update(rho);
        try {
            channel.publish(Interval.decided(period, decision.intervalMs(), System.currentTimeMillis()));
        } catch (IOException e) {
            // klinkctl's run is not on (yet): the instances keep their λ; the next period sends again
        }
        return decision;
    }

    private void record(long period, double[] rho, PiController.Decision decision) throws InterruptedException {
        if (pendingRows.size() < MAX_PENDING_ROWS) {
            pendingRows.add(CombinerChannel.row(System.currentTimeMillis(), queryId, period, rho, decision,
                    controller != null ? "adcom" : "fixed"));
        }
        try {
            channel.postRows(pendingRows);
            pendingRows.clear();
        } catch (IOException e) {
            // kept for the next period
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
