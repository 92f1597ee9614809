package io.klink.agent;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Options passed on the agent's command line: {@code -javaagent:klink-agent.jar=key=value,key=value}.
 * Unknown keys are kept so that later modules (scheduler, policies) can read their own settings.
 */
public record AgentOptions(Map<String, String> values) {

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
            values.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return new AgentOptions(Map.copyOf(values));
    }

    /** Directory where the agent reports that it loaded (one file per JVM), or null if not set. */
    public Path statusDir() {
        String dir = values.get("statusDir");
        return dir == null ? null : Path.of(dir);
    }

    public String get(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }
}
