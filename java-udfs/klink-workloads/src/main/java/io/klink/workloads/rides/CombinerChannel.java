package io.klink.workloads.rides;

import java.io.IOException;
import java.io.Serializable;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The combiner's end of klinkctl's control channel (klinkctl/run/combiner_relay.py; docs/combiner.md): plain HTTP
 * to the address the TaskManagers' agents use, which the job config names with the stack's token. Flink loads the
 * job's operators apart from the agent, so they have this small client of their own.
 * <ul>
 *   <li>{@code POST /combiner/interval?query=}: the controller's {@link Interval} of one period.</li>
 *   <li>{@code GET /combiner/interval?query=&seen=}: an instance waits for an interval of another period than
 *       {@code seen}; klinkctl answers within {@value #RELAY_WAIT_MS} ms, empty if none came.</li>
 *   <li>{@code POST /combiner/rows}: rows of the run's combiner.csv, its header first.</li>
 * </ul>
 * klinkctl listens only while its run is on: until then, and after, every call fails with an IOException.
 */
public final class CombinerChannel {

    /** combiner.csv's columns; rho is every instance's utilisation, ';'-separated, in subtask order. */
    public static final String COLUMNS = "time_ms,query,period,rho,rho_avg,saturated,error,interval_ms,mode";
    /** klinkctl's longest wait before it answers an instance (combiner_relay.INTERVAL_WAIT_S). */
    static final long RELAY_WAIT_MS = 2000;
    private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(500);
    private static final Duration REPLY_TIMEOUT = Duration.ofMillis(RELAY_WAIT_MS + 3000);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(CONNECT_TIMEOUT).build();
    private final String base;
    private final String identity;
    private final String queryId;

    /** Where klinkctl listens during the run: the job config's controlUrl, stackToken and runId. */
    public record Address(String controlUrl, String stackToken, String runId) implements Serializable {
        public Address {
            if (controlUrl == null || controlUrl.isBlank()) {
                throw new IllegalArgumentException("the combiner needs klinkctl's control channel, and the job "
                        + "config's controlUrl is empty");
            }
        }
    }

    public CombinerChannel(Address address, String queryId) {
        this.base = address.controlUrl().replaceAll("/+$", "");
        this.identity = "stack=" + encode(address.stackToken()) + "&run=" + encode(address.runId());
        this.queryId = queryId;
    }

    /** The controller's decision of one period, for every instance of its query. */
    public void publish(Interval interval) throws IOException, InterruptedException {
        send(request("/combiner/interval", "&query=" + encode(queryId))
                .POST(HttpRequest.BodyPublishers.ofString(interval.toJson())));
    }

    /** The query's latest interval if its period is not {@code seenPeriod}; null if none came meanwhile. */
    public Interval awaitChange(long seenPeriod) throws IOException, InterruptedException {
        String body = send(request("/combiner/interval", "&query=" + encode(queryId) + "&seen=" + seenPeriod).GET());
        return body.isBlank() ? null : Interval.fromJson(body);
    }

    /** Rows for combiner.csv (each ending with a newline), under its header. */
    public void postRows(List<String> rows) throws IOException, InterruptedException {
        send(request("/combiner/rows", "").POST(HttpRequest.BodyPublishers.ofString(
                COLUMNS + "\n" + String.join("", rows))));
    }

    /** One combiner.csv row: the period's utilisations and the controller's decision. */
    public static String row(long timeMs, String queryId, long period, double[] rho, PiController.Decision decision,
                             String mode) {
        StringBuilder line = new StringBuilder().append(timeMs).append(',').append(queryId).append(',')
                .append(period).append(',');
        for (int i = 0; i < rho.length; i++) {
            line.append(i == 0 ? "" : ";").append(String.format(Locale.ROOT, "%.4f", rho[i]));
        }
        return line.append(String.format(Locale.ROOT, ",%.4f,%s,%.4f,%d,%s\n", decision.averageUtilisation(),
                decision.saturated(), decision.error(), decision.intervalMs(), mode)).toString();
    }

    private HttpRequest.Builder request(String path, String query) {
        return HttpRequest.newBuilder(URI.create(base + path + "?" + identity + query)).timeout(REPLY_TIMEOUT);
    }

    /** The answer's text; any status but 200 is an IOException carrying klinkctl's one-line reason. */
    private String send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("klinkctl answered " + response.statusCode() + ": " + response.body().strip());
        }
        return response.body();
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
