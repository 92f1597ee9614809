package io.klink.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The agent's end of klinkctl's control channel (docs/scheduler.md, "Control"): plain HTTP to the
 * address given as the agent's {@code control} option. The harness listens only while one of its runs is on.
 * <ul>
 *   <li>{@code GET /control}: the run's {@link RunControl}; nobody listening means plain Flink.</li>
 *   <li>{@code POST /rows?run=&file=}: a batch of one file's rows, its header first.</li>
 *   <li>{@code POST /snapshots?run=}: this TaskManager's task snapshots; the answer is the others'
 *       ({@link ForwardedTasks}, distributed Klink).</li>
 *   <li>{@code POST /done?run=}: this TaskManager sent everything of that run.</li>
 * </ul>
 * Every request names the stack (a stack's agents must never obey another stack's harness on the same port), the
 * agent (host and pid) and its version: that is how the harness learns which TaskManagers took part.
 */
public final class HarnessChannel {

    static final int CONNECT_TIMEOUT_MS = 500;
    static final int READ_TIMEOUT_MS = 3000;

    private final URI base;
    private final Map<String, String> identity;

    public HarnessChannel(URI base, String stack, String agent, String version) {
        this.base = base;
        Map<String, String> who = new LinkedHashMap<>();
        who.put("stack", stack);
        who.put("agent", agent);
        who.put("version", version);
        this.identity = java.util.Collections.unmodifiableMap(who);
    }

    /** The control's text, or "" when nobody listens (the harness has no run on). */
    public String fetch() throws IOException {
        HttpURLConnection http = open("/control", Map.of(), "GET");
        try {
            return read(http);
        } catch (ConnectException e) {
            return "";
        } finally {
            http.disconnect();
        }
    }

    /** A run's output: rows buffered per file, posted at every flush. */
    public RunOutput output(String run) {
        return new PostedOutput(this, run);
    }

    /** Posts to the run's {@code path}, for one of its files or (file null) the whole run; returns the answer. */
    String post(String path, String run, String file, String body) throws IOException {
        Map<String, String> query = new LinkedHashMap<>();
        query.put("run", run);
        if (file != null) {
            query.put("file", file);
        }
        HttpURLConnection http = open(path, query, "POST");
        try {
            http.setDoOutput(true);
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            http.setFixedLengthStreamingMode(bytes.length);
            try (OutputStream out = http.getOutputStream()) {
                out.write(bytes);
            }
            return read(http);
        } finally {
            http.disconnect();
        }
    }

    private HttpURLConnection open(String path, Map<String, String> query, String method) throws IOException {
        Map<String, String> all = new LinkedHashMap<>(identity);
        all.putAll(query);
        String q = all.entrySet().stream()
                .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        HttpURLConnection http = (HttpURLConnection) base.resolve(path + "?" + q).toURL().openConnection();
        http.setRequestMethod(method);
        http.setConnectTimeout(CONNECT_TIMEOUT_MS);
        http.setReadTimeout(READ_TIMEOUT_MS);
        http.setUseCaches(false);
        return http;
    }

    /** The response body; any status but 200 is an IOException carrying the harness's one-line reason. */
    private static String read(HttpURLConnection http) throws IOException {
        int status = http.getResponseCode();
        InputStream in = status == HttpURLConnection.HTTP_OK ? http.getInputStream() : http.getErrorStream();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (in != null) {
            try (in) {
                in.transferTo(body);
            }
        }
        String text = body.toString(StandardCharsets.UTF_8);
        if (status != HttpURLConnection.HTTP_OK) {
            throw new IOException("klinkctl answered " + status + ": " + text.strip());
        }
        return text;
    }
}
