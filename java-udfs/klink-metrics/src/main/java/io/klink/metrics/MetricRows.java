package io.klink.metrics;

import java.util.HashMap;
import java.util.Map;

/**
 * Turns what reaches the output operator into one-line JSON metric rows (read by the klinkctl harness):
 * <ul>
 *   <li>{@code firing}: SWM latency = wall time the firing summary is processed here − window end
 *       (DESIGN.md §4; the summary follows every key's result of that window, so it is the window's output);
 *   <li>{@code marker}: blocking marker latency = now − creation time;
 *   <li>{@code watermark}: propagation delay = now − the wall time the same watermark left the source task;
 *   <li>{@code result}: one key's result of a window and the wall time it reached this operator (only if asked
 *       for: to measure a sampler's error, or when a changelog's window became exact);
 *   <li>{@code substream}: a sampler's sub-stream, observed and sampled events (klink-sampler).
 * </ul>
 */
public final class MetricRows {

    private final String query;
    private final boolean recordResults;
    private final Map<Long, Long> probeWallTimeByWatermark = new HashMap<>();

    public MetricRows(String query) {
        this(query, false);
    }

    public MetricRows(String query, boolean recordResults) {
        this.query = query;
        this.recordResults = recordResults;
    }

    /** The row for an envelope, or null if it produces none (data results only count towards the firing). */
    public String onElement(Envelope e, long now) {
        switch (e.kind) {
            case Envelope.FIRING:
                return "{\"type\":\"firing\",\"query\":\"" + query + "\",\"window_start\":" + e.windowStart
                        + ",\"window_end\":" + e.timestamp + ",\"swm\":" + e.sweepingWatermark
                        + ",\"fired_at\":" + e.wallTime + ",\"output_at\":" + now
                        + ",\"swm_latency_ms\":" + (now - e.timestamp) + ",\"keys\":" + e.keys
                        + ",\"events\":" + e.value + ",\"late_dropped\":" + e.lateDropped + "}";
            case Envelope.MARKER:
                return "{\"type\":\"marker\",\"query\":\"" + query + "\",\"created_at\":" + e.wallTime
                        + ",\"output_at\":" + now + ",\"latency_ms\":" + (now - e.wallTime) + "}";
            case Envelope.RESULT:
                return !recordResults ? null : "{\"type\":\"result\",\"query\":\"" + query + "\",\"window_end\":"
                        + e.timestamp + ",\"key\":\"" + e.key + "\",\"value\":" + e.value
                        + ",\"weight\":" + e.weight + fieldsJson(e.fields) + ",\"output_at\":" + now + "}";
            case Envelope.SUBSTREAM:
                return "{\"type\":\"substream\",\"query\":\"" + query + "\",\"substream_end\":" + e.timestamp
                        + ",\"closed_at\":" + e.wallTime + ",\"observed\":" + (long) e.fields[0]
                        + ",\"sampled\":" + (long) e.fields[1] + ",\"rate\":" + e.fields[2]
                        + ",\"target\":" + e.fields[3] + ",\"dropped_late\":" + (long) e.fields[4] + "}";
            case Envelope.PROBE:
                probeWallTimeByWatermark.put(e.timestamp, e.wallTime);
                return null;
            default:
                return null;
        }
    }

    /** {@code ,"fields":[...]} of a RESULT's fields (NYT: averages; kMeans: the centroid), empty without. */
    static String fieldsJson(double[] fields) {
        if (fields == null) {
            return "";
        }
        StringBuilder json = new StringBuilder(",\"fields\":[");
        for (int i = 0; i < fields.length; i++) {
            json.append(i == 0 ? "" : ",").append(Double.isFinite(fields[i]) ? Double.toString(fields[i]) : "null");
        }
        return json.append(']').toString();
    }

    /** The row for a watermark arriving here, if its probe came ahead of it. */
    public String onWatermark(long watermark, long now) {
        Long emittedAt = probeWallTimeByWatermark.remove(watermark);
        if (emittedAt == null) {
            return null;
        }
        probeWallTimeByWatermark.keySet().removeIf(w -> w < watermark);  // superseded probes
        return "{\"type\":\"watermark\",\"query\":\"" + query + "\",\"watermark\":" + watermark
                + ",\"emitted_at\":" + emittedAt + ",\"output_at\":" + now
                + ",\"propagation_ms\":" + (now - emittedAt) + "}";
    }
}
