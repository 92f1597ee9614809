package io.klink.agent;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Options passed on the agent's command line: {@code -javaagent:klink-agent.jar=key=value,key=value}.
 * Unknown keys are refused (naming the key), so a misspelt option is an error rather than ignored; the
 * scheduler's settings come from the run's control ({@link RunControl}), not from here.
 */
public record AgentOptions(Map<String, String> values) {

    /** Every option the agent reads. */
    public static final Set<String> KEYS = Set.of("statusDir", "control", "stack");

    public static AgentOptions parse(String agentArgs) {
        Map<String, String> values = new LinkedHashMap<>();
        if (agentArgs == null || agentArgs.isBlank()) {
            return new AgentOptions(values);
        }
        for (String pair : agentArgs.split(",")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(
                        "klink-agent option '" + pair + "' is not key=value (options: " + agentArgs + ")");
            }
            String key = pair.substring(0, eq).trim();
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException("unknown klink-agent option '" + key + "'; known: " + KEYS);
            }
            values.put(key, pair.substring(eq + 1).trim());
        }
        return new AgentOptions(Map.copyOf(values));
    }

    /** Directory where the agent reports that it loaded (one file per JVM), or null if not set. */
    public Path statusDir() {
        String dir = values.get("statusDir");
        return dir == null ? null : Path.of(dir);
    }

    /**
     * klinkctl's control channel ({@link HarnessChannel}), or null without one (then the scheduler stays off).
     *
     * @throws IllegalArgumentException if {@code control} is not an http URL or {@code stack} is missing
     */
    public HarnessChannel channel(String agent, String version) {
        String url = values.get("control");
        if (url == null) {
            return null;
        }
        URI base;
        try {
            base = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("klink-agent option control=" + url + " is not a URL: " + e.getReason());
        }
        if (!"http".equals(base.getScheme()) || base.getHost() == null) {
            throw new IllegalArgumentException("klink-agent option control=" + url + " must be http://HOST:PORT");
        }
        String stack = values.get("stack");
        if (stack == null || stack.isBlank()) {
            throw new IllegalArgumentException("klink-agent option control needs stack=<the stack's token> beside it");
        }
        return new HarnessChannel(base, stack, agent, version);
    }

    public String get(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }
}
