package io.klink.scheduler.policy;

/**
 * Why a predicted SWM was not scored against its interval (a row of estimator.csv with {@code skipped}
 * set). Both estimators are scored on the same SWMs, so every reason applies to the pair.
 */
public enum SwmSkip {
    /**
     * When the prediction was made, Klink had no finished epoch (its interval was the cold-start guess
     * D ± z·r) or LR fewer than {@link LinearRegressionEstimator#MIN_POINTS} observed SWMs (no residual
     * spread, a zero-width interval).
     */
    NO_HISTORY,
    /**
     * The ingested watermark had already passed the deadline when the window became the next to fire
     * (e.g. the watermark jumped past several window ends in one cycle): nothing was left to predict.
     */
    INGESTED_BEFORE_PREDICTION,
    /** The stream reported no watermark in the cycle before the crossing, so its time is unknown. */
    CROSSING_NOT_OBSERVED,
    /** The window's next deadline changed before its SWM was seen. */
    DEADLINE_CHANGED,
    /** Still pending when the scheduler was deactivated or the query's tasks stopped reporting. */
    RUN_ENDED;

    /** The name written to estimator.csv. */
    public String csvName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
