package io.klink.workloads.late;

import io.klink.metrics.Envelope;
import java.util.List;

/** The RESULT rows of the late-event windows, the same for AION and Flink's window operator. */
public final class LateResults {

    /** The RESULT fields after the window function's own ({@link LateWindowFunction#fields}), in order. */
    public static final List<String> EXECUTION_FIELDS = List.of("execution", "late_accepted");

    /** The key of a window's staleness report at cleanup (AION only). */
    public static final String STALENESS_KEY = "#staleness";
    /** Its fields, in order (klinkctl/run/late_state.py reads them by position). */
    public static final String STALENESS_FIELDS = "executions,planned,late_events,max_staleness,bound_ms";

    private LateResults() {}

    /** A RESULT's fields in order: the window function's, then {@link #EXECUTION_FIELDS}. */
    public static List<String> fields(LateWindowFunction function) {
        return java.util.stream.Stream.concat(function.fields().stream(), EXECUTION_FIELDS.stream()).toList();
    }

    /** AION's report of a window at its cleanup (value: its late re-executions). */
    public static Envelope staleness(LateExecutions.Report r) {
        Envelope e = Envelope.result(STALENESS_KEY, r.windowEnd(), r.executions());
        e.fields = new double[] {r.executions(), r.planned(), r.lateEvents(), r.maxStaleness(), r.boundMs()};
        return e;
    }

    /** One key's result of one execution: value = its events; fields = {@code values}, execution, late accepted. */
    public static Envelope result(long windowEnd, String key, List<Double> values, long events, int execution,
                                  long lateAccepted) {
        Envelope e = Envelope.result(key, windowEnd, events);
        e.fields = new double[values.size() + EXECUTION_FIELDS.size()];
        for (int i = 0; i < values.size(); i++) {
            e.fields[i] = values.get(i);
        }
        e.fields[values.size()] = execution;
        e.fields[values.size() + 1] = lateAccepted;
        return e;
    }
}
