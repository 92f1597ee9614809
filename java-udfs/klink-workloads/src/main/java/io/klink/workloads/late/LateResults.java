package io.klink.workloads.late;

import io.klink.metrics.Envelope;

/** The RESULT rows of the late-event windows, the same for AION and Flink's window operator. */
public final class LateResults {

    /** The RESULT fields, in order (klinkctl/workloads/average.py reads them by position). */
    public static final String FIELDS = "average,sum,count,execution,late_accepted";

    private LateResults() {}

    public static Envelope result(long windowEnd, String key, double sum, long count, int execution,
                                  long lateAccepted) {
        Envelope e = Envelope.result(key, windowEnd, count);
        e.fields = new double[] {count == 0 ? 0 : sum / count, sum, count, execution, lateAccepted};
        return e;
    }
}
