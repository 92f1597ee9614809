package io.klink.agent;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The harness's per-run scheduler control, {@code <statusDir>/control.json}:
 * {@code {"policy": "klink", "params": {"r": "120"}, "run_dir": "/abs/results/run-id"}}.
 * Parameter values may be JSON strings, numbers or booleans; they reach the policy as strings.
 * Parsed with the Jackson that flink-dist ships (shaded), which is on the TaskManager's classpath.
 */
public record ControlFile(String policy, Map<String, String> params, Path runDir) {

    public static final String FILE_NAME = "control.json";

    /** No file: plain Flink. */
    public static final ControlFile DEFAULT = new ControlFile("default", Map.of(), null);

    public ControlFile {
        params = Map.copyOf(params);
    }

    public boolean isDefault() {
        return "default".equals(policy);
    }

    /** @throws IllegalArgumentException if the text is not such an object */
    public static ControlFile parse(String json) {
        Object root;
        try {
            root = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readValue(json, Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("control file is not valid JSON: " + e.getOriginalMessage());
        }
        if (!(root instanceof Map<?, ?> map)) {
            throw new IllegalArgumentException("control file must be a JSON object");
        }
        Object policy = map.get("policy");
        if (!(policy instanceof String name) || name.isBlank()) {
            throw new IllegalArgumentException("control file needs a string \"policy\"");
        }
        Map<String, String> params = new LinkedHashMap<>();
        Object rawParams = map.get("params");
        if (rawParams != null) {
            if (!(rawParams instanceof Map<?, ?> pm)) {
                throw new IllegalArgumentException("\"params\" must be an object");
            }
            for (Map.Entry<?, ?> e : pm.entrySet()) {
                Object v = e.getValue();
                if (v instanceof Map || v instanceof java.util.List) {
                    throw new IllegalArgumentException("parameter " + e.getKey() + " must be a string or number");
                }
                if (v != null) {
                    params.put((String) e.getKey(), String.valueOf(v));
                }
            }
        }
        Object runDir = map.get("run_dir");
        if (runDir != null && !(runDir instanceof String)) {
            throw new IllegalArgumentException("\"run_dir\" must be a string");
        }
        String normalized = name.trim().toLowerCase(java.util.Locale.ROOT);
        if (!normalized.equals("default") && (runDir == null || ((String) runDir).isBlank())) {
            throw new IllegalArgumentException("policy " + normalized + " needs \"run_dir\"");
        }
        return new ControlFile(normalized, params,
                runDir == null || ((String) runDir).isBlank() ? null : Path.of((String) runDir));
    }
}
