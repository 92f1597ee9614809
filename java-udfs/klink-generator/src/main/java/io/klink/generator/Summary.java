package io.klink.generator;

import java.util.List;
import java.util.Map;

/** Renders the end-of-run summary JSON (one object, pretty-printed with one key per line). */
final class Summary {

    private Summary() {
    }

    /**
     * @param flushS          time the final producer flush took (events still buffered in the producer)
     * @param producerMetrics Kafka producer metrics by name (warm-up included)
     */
    static String render(GeneratorArgs a, Generator.Result r, long startMs, double flushS, double runCpuS,
                         Map<String, Double> producerMetrics, long sendErrors, String firstError) {
        List<String> topics = a.topics;
        RateSchedule rates = a.maxRate ? RateSchedule.STEADY : a.rateSchedule();
        StringBuilder perTopic = new StringBuilder("{");
        for (int t = 0; t < topics.size(); t++) {
            if (t > 0) {
                perTopic.append(", ");
            }
            perTopic.append(Json.str(topics.get(t))).append(": {\"sent\": ").append(r.sentPerTopic()[t])
                    .append(", \"scheduled\": ").append(r.scheduledPerTopic()[t]).append('}');
        }
        perTopic.append('}');
        StringBuilder topicList = new StringBuilder("[");
        for (int t = 0; t < topics.size(); t++) {
            topicList.append(t > 0 ? ", " : "").append(Json.str(topics.get(t)));
        }
        topicList.append(']');
        String[][] fields = {
                {"status", Json.str(r.interrupted() ? "interrupted" : "completed")},
                {"events_sent", Long.toString(r.eventsSent())},
                {"events_scheduled", Long.toString(r.eventsScheduled())},
                {"duration_s", Json.num(a.durationMs / 1000.0)},
                {"elapsed_s", Json.num(r.elapsedNanos() / 1e9)},
                {"flush_s", Json.num(flushS)},
                {"achieved_rate", Json.num(Math.round(r.achievedRate() * 10) / 10.0)},
                // the schedule's mean rate over the run, all topics: what a run that keeps its schedule sends
                {"target_rate", a.maxRate ? "null"
                        : Json.num(Math.round(a.ratePerTopic * topics.size() * rates.meanMultiplier(a.durationMs) * 10) / 10.0)},
                {"rate_schedule", a.maxRate ? "null" : Json.str(rates.spec())},
                {"rate_per_topic", a.maxRate ? "null" : Long.toString(a.ratePerTopic)},
                {"max_rate", Boolean.toString(a.maxRate)},
                {"behind_events", Long.toString(r.behindEvents())},
                {"behind_fraction", Json.num(r.behindFraction())},
                {"fell_behind", Boolean.toString(r.fellBehind())},
                {"behind_threshold_ms", Long.toString(LagStats.BEHIND_THRESHOLD_NANOS / 1_000_000L)},
                {"max_lag_ms", Json.num(r.maxLagNanos() / 1e6)},
                {"lag_p99_ms", Json.num(r.lagP99Ms())},
                {"per_topic", perTopic.toString()},
                {"topics", topicList.toString()},
                {"seed", Long.toString(a.seed)},
                {"delay", Json.str(a.delay.spec())},
                {"campaigns", Integer.toString(a.campaigns)},
                {"ads_per_campaign", Integer.toString(a.adsPerCampaign)},
                {"start_ms", Long.toString(startMs)},
                {"record_key", Json.str("none")},
                {"compression", Json.str(a.compression)},
                {"pack_bytes", Integer.toString(a.packBytes)},
                // CPU time of the whole JVM (sending thread, producer I/O thread, GC, JIT) during the run
                {"run_cpu_s", Json.num(runCpuS)},
                {"warmup_s", Json.num(a.warmupMs / 1000.0)},
                // send() blocked for lack of buffer space: the broker, not the generator, set the pace
                {"producer_blocked_s", Json.num(metric(producerMetrics, "bufferpool-wait-time-ns-total") / 1e9)},
                {"producer_batch_bytes_avg", Json.num(metric(producerMetrics, "batch-size-avg"))},
                {"producer_records_per_request_avg", Json.num(metric(producerMetrics, "records-per-request-avg"))},
                {"producer_compression_rate_avg", Json.num(metric(producerMetrics, "compression-rate-avg"))},
                {"producer_request_latency_avg_ms", Json.num(metric(producerMetrics, "request-latency-avg"))},
                {"send_errors", Long.toString(sendErrors)},
                {"first_send_error", Json.str(firstError)},
        };
        StringBuilder sb = new StringBuilder("{\n");
        for (int i = 0; i < fields.length; i++) {
            sb.append("  ").append(Json.str(fields[i][0])).append(": ").append(fields[i][1])
                    .append(i + 1 < fields.length ? ",\n" : "\n");
        }
        return sb.append("}\n").toString();
    }

    private static double metric(Map<String, Double> metrics, String name) {
        return metrics.getOrDefault(name, Double.NaN);
    }
}
