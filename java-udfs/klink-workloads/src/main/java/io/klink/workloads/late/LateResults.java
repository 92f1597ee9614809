package io.klink.workloads.late;

import io.klink.metrics.Envelope;

/** The RESULT rows of the late-event windows, the same for AION and Flink's window operator. */
public final class LateResults {

    /** The RESULT fields, in order (klinkctl/workloads/average.py reads them by position). */
    public static final String FIELDS = "average,sum,count,execution,late_accepted";

    /** The key of a window's staleness report at cleanup (AION only). */
    public static final String STALENESS_KEY = "#staleness";
    /** Its fields, in order (klinkctl/run/late_state.py reads them by position). */
    public static final String STALENESS_FIELDS = "executions,planned,late_events,max_staleness,bound_ms";

    private LateResults() {}

    /** AION's report of a window at its cleanup (value: its late re-executions). */
    public static Envelope staleness(LateExecutions.Report r) {
        Envelope e = Envelope.result(STALENESS_KEY, r.windowEnd(), r.executions());
        e.fields = new double[] {r.executions(), r.planned(), r.lateEvents(), r.maxStaleness(), r.boundMs()};
        return e;
    }

    public static Envelope result(long windowEnd, String key, double sum, long count, int execution,
                                  long lateAccepted) {
        Envelope e = Envelope.result(key, windowEnd, count);
        e.fields = new double[] {count == 0 ? 0 : sum / count, sum, count, execution, lateAccepted};
        return e;
    }
}
