package io.klink.agent;

import io.klink.scheduler.policy.PolicyConfig;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The harness's per-run scheduler control, as {@link HarnessChannel} fetches it from klinkctl:
 * {@code {"policy": "klink", "params": {"r": "120"}, "run": "ysb-klink-20261126-140000"}}. The run names where
 * the agent's rows go (klinkctl writes them into that run's directory).
 * Parameter values may be JSON strings, numbers or booleans; they reach the policy as strings. Unknown keys, at
 * the top or among the parameters, are refused by name: a misspelt parameter would otherwise run the default.
 * Parsed with the Jackson that flink-dist ships (shaded), which is on the TaskManager's classpath.
 */
public record RunControl(String policy, Map<String, String> params, String run) {

    /** The control's keys. */
    public static final Set<String> KEYS = Set.of("policy", "params", "run");

    /** Every parameter: the policies' and the scheduler's ({@link PolicyConfig}), the enforcement, forwarding. */
    public static final Set<String> PARAMETERS = parameters();

    private static Set<String> parameters() {
        Set<String> keys = new LinkedHashSet<>(PolicyConfig.DEFAULTS.keySet());
        keys.add(Enforcement.PARAMETER);
        keys.add(ForwardedTasks.PARAMETER);
        return Collections.unmodifiableSet(keys);
    }

    /** No harness listening: plain Flink, no run. */
    public static final RunControl DEFAULT = new RunControl("default", Map.of(), null);

    public RunControl {
        params = Map.copyOf(params);
        if (!"default".equals(policy) && (run == null || run.isBlank())) {
            throw new IllegalArgumentException("policy " + policy + " needs \"run\"");
        }
    }

    public boolean isDefault() {
        return "default".equals(policy);
    }

    /** @throws IllegalArgumentException if the text is not such an object */
    public static RunControl parse(String json) {
        Object root;
        try {
            root = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readValue(json, Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("run control is not valid JSON: " + e.getOriginalMessage());
        }
        if (!(root instanceof Map<?, ?> map)) {
            throw new IllegalArgumentException("run control must be a JSON object");
        }
        refuseUnknown(map.keySet(), KEYS, "key");
        Object policy = map.get("policy");
        if (!(policy instanceof String name) || name.isBlank()) {
            throw new IllegalArgumentException("run control needs a string \"policy\"");
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
        Object run = map.get("run");
        if (run != null && !(run instanceof String)) {
            throw new IllegalArgumentException("\"run\" must be a string");
        }
        String normalized = name.trim().toLowerCase(java.util.Locale.ROOT);
        return new RunControl(normalized, params, run == null || ((String) run).isBlank() ? null : (String) run);
    }

    private static void refuseUnknown(Set<?> given, Set<String> known, String what) {
        for (Object key : given) {
            if (!known.contains(key)) {
                throw new IllegalArgumentException("run control: unknown " + what + " '" + key + "'; known: " + known);
            }
        }
    }
}
