package io.klink.scheduler.policy;

/**
 * One SWM, the interval an estimator predicted for it at the start of its epoch, and when it was
 * actually ingested: the row behind the paper's estimation-accuracy figure (§6.2.5, Fig. 9c).
 *
 * @param estimator     {@code "klink"} or {@code "lr"}
 * @param queryId       the windowed query whose window the SWM closes
 * @param inputQueryId  the input stream that ingested it (= queryId except for join inputs)
 * @param deadlineMs    the window's event-time deadline
 * @param predicted     the prediction made when the window became the next to fire
 * @param actualMs      observed ingestion time (wall ms)
 */
public record EstimatorRecord(
        String estimator,
        String queryId,
        String inputQueryId,
        long deadlineMs,
        SwmInterval predicted,
        long actualMs) {

    /** True if the SWM was ingested inside the predicted [t_min, t_max]. */
    public boolean inside() {
        return predicted.contains(actualMs);
    }

    /** Actual − predicted mean, ms. */
    public double errorMs() {
        return actualMs - predicted.meanMs();
    }
}
