package io.klink.workloads.rides;

import io.klink.workloads.common.QueryPipelines;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * One controller period's mini-batch interval λ, as the controller sends it to every instance of its query's
 * combiner (seed adcom-edbt21.txt §3.1, the actuator's signal): every instance takes it at the wall-clock instant
 * {@code fromMs}, so all of them switch in step however late each one heard of it.
 */
public record Interval(long period, long intervalMs, long fromMs) {

    /** How long after its decision the controller lets the instances switch: time for the signal to reach them. */
    public static final long SWITCH_LEAD_MS = 100;

    /** The interval the controller decided at {@code nowMs} for {@code period}. */
    public static Interval decided(long period, long intervalMs, long nowMs) {
        return new Interval(period, intervalMs, nowMs + SWITCH_LEAD_MS);
    }

    /** As klinkctl relays it (klinkctl/run/combiner_relay.py). */
    public String toJson() {
        Map<String, Long> fields = new LinkedHashMap<>();
        fields.put("period", period);
        fields.put("intervalMs", intervalMs);
        fields.put("fromMs", fromMs);
        try {
            return QueryPipelines.JSON.writeValueAsString(fields);
        } catch (IOException e) {
            throw new IllegalStateException("three numbers always serialise", e);
        }
    }

    public static Interval fromJson(String json) throws IOException {
        JsonNode node = QueryPipelines.JSON.readTree(json);
        return new Interval(node.path("period").asLong(), node.path("intervalMs").asLong(),
                node.path("fromMs").asLong());
    }
}
