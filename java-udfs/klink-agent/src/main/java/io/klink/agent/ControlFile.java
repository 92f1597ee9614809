package io.klink.agent;

import io.klink.scheduler.policy.PolicyConfig;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The harness's per-run scheduler control, {@code <statusDir>/control.json}:
 * {@code {"policy": "klink", "params": {"r": "120"}, "run_dir": "/abs/results/run-id"}}.
 * Parameter values may be JSON strings, numbers or booleans; they reach the policy as strings. Unknown keys, at
 * the top or among the parameters, are refused by name: a misspelt parameter would otherwise run the default.
 * Parsed with the Jackson that flink-dist ships (shaded), which is on the TaskManager's classpath.
 */
public record ControlFile(String policy, Map<String, String> params, Path runDir) {

    public static final String FILE_NAME = "control.json";

    /** The file's keys. */
    public static final Set<String> KEYS = Set.of("policy", "params", "run_dir");

    /** Every parameter: the policies' and the scheduler's ({@link PolicyConfig}) and the enforcement. */
    public static final Set<String> PARAMETERS = parameters();

    private static Set<String> parameters() {
        Set<String> keys = new LinkedHashSet<>(PolicyConfig.DEFAULTS.keySet());
        keys.add(Enforcement.PARAMETER);
        return Collections.unmodifiableSet(keys);
    }

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
        refuseUnknown(map.keySet(), KEYS, "key");
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
            refuseUnknown(pm.keySet(), PARAMETERS, "parameter");
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

    private static void refuseUnknown(Set<?> given, Set<String> known, String what) {
        for (Object key : given) {
            if (!known.contains(key)) {
                throw new IllegalArgumentException("control file: unknown " + what + " '" + key + "'; known: " + known);
            }
        }
    }
}
