package io.klink.scheduler.policy;

/**
 * One SWM, the interval an estimator predicted for it at the start of its epoch, and when it was
 * actually ingested: the row behind the paper's estimation-accuracy figure (§6.2.5, Fig. 9c). A
 * skipped record ({@link #skipped} non-null) is not scored; its actual time may be unknown.
 *
 * @param estimator     {@code "klink"} or {@code "lr"}
 * @param queryId       the windowed query whose window the SWM closes
 * @param inputQueryId  the input stream that ingested it (= queryId except for join inputs)
 * @param deadlineMs    the window's event-time deadline
 * @param predicted     the prediction made when the window became the next to fire
 * @param actualMs      observed ingestion time (wall ms), or {@link #UNKNOWN}
 * @param skipped       why the SWM is not scored, null if it is
 */
public record EstimatorRecord(
        String estimator,
        String queryId,
        String inputQueryId,
        long deadlineMs,
        SwmInterval predicted,
        long actualMs,
        SwmSkip skipped) {

    /** The columns of estimator.csv, one row per record ({@link #csvRow}). */
    public static final String CSV_HEADER = "estimator,confidence,query,input,deadline_ms,predicted_mean_ms,"
            + "sigma_ms,t_min_ms,t_max_ms,actual_ms,inside,error_ms,skipped";

    /** {@link #actualMs} when the ingestion time was not observed. */
    public static final long UNKNOWN = Long.MIN_VALUE;

    /** A scored record. */
    public EstimatorRecord(String estimator, String queryId, String inputQueryId, long deadlineMs,
                           SwmInterval predicted, long actualMs) {
        this(estimator, queryId, inputQueryId, deadlineMs, predicted, actualMs, null);
    }

    public boolean scored() {
        return skipped == null;
    }

    public boolean actualKnown() {
        return actualMs != UNKNOWN;
    }

    /** True if the SWM was ingested inside the predicted [t_min, t_max] (false when not scored). */
    public boolean inside() {
        return scored() && predicted.contains(actualMs);
    }

    /** Actual − predicted mean (the point estimate's error), ms; NaN when the actual time is unknown. */
    public double errorMs() {
        return actualKnown() ? actualMs - predicted.meanMs() : Double.NaN;
    }

    /**
     * This record as a row of estimator.csv: a skipped SWM has its reason in {@code skipped}, empty
     * {@code inside} and {@code error_ms}, and {@code actual_ms} only when it was observed.
     */
    public String csvRow(double confidence) {
        return String.join(",", estimator, Double.toString(confidence), queryId, inputQueryId,
                Long.toString(deadlineMs), ms(predicted.meanMs()), ms(predicted.sigmaMs()), ms(predicted.tMinMs()),
                ms(predicted.tMaxMs()), actualKnown() ? Long.toString(actualMs) : "",
                scored() ? Boolean.toString(inside()) : "", scored() ? ms(errorMs()) : "",
                scored() ? "" : skipped.csvName());
    }

    private static String ms(double v) {
        return String.format(java.util.Locale.ROOT, "%.1f", v);
    }
}
