package io.klink.scheduler.policy;

import io.klink.scheduler.TaskSnapshot;

import java.util.Collection;

/**
 * Klink's estimation state for one (input stream u, windowed query j) pair: its Klink estimator, the LR
 * baseline fed the same epochs, and the prediction pending for j's next deadline until the SWM is ingested
 * (see {@link SwmObserver}). Package-private helper of {@link KlinkPolicy}.
 */
final class SwmTracker {

    static final long NONE = Long.MIN_VALUE;

    final String input;
    final String query;
    final KlinkEstimator klink;
    final LinearRegressionEstimator lr;
    long pending = TaskSnapshot.NO_DEADLINE;
    SwmInterval klinkPrediction;
    SwmInterval lrPrediction;
    /** Both estimators had history when the pending prediction was made. */
    boolean predictedWithHistory;
    /** The pending prediction's records were queued (scored or skipped). */
    boolean settled = true;
    /** Ingestion time of the pending SWM, or now when it was seen late (for the slack). */
    long ingestedAt = NONE;
    /** Interpolated crossing time of the pending SWM, or UNKNOWN when not observed. */
    long observedAt = EstimatorRecord.UNKNOWN;
    long lastWm = TaskSnapshot.NO_WATERMARK;

    SwmTracker(String input, String query, PolicyConfig c) {
        this.input = input;
        this.query = query;
        this.klink = new KlinkEstimator(c.history(), c.confidence(), c.cycleMs());
        this.lr = new LinearRegressionEstimator(c.history(), c.confidence());
    }

    boolean hasPending() {
        return pending != TaskSnapshot.NO_DEADLINE;
    }

    /** The pending deadline's predictions, made when its window became the next to fire. */
    void predict(long deadline) {
        pending = deadline;
        ingestedAt = NONE;
        observedAt = EstimatorRecord.UNKNOWN;
        klinkPrediction = klink.predict(deadline);
        lrPrediction = lr.predict(deadline);
        predictedWithHistory = klink.history().epochs() > 0 && lr.hasHistory();
        settled = false;
    }

    /** Queues the pending prediction's records into {@code records}, once: scored if {@code skip} is null. */
    void settle(long actualMs, SwmSkip skip, Collection<EstimatorRecord> records) {
        if (settled) {
            return;
        }
        settled = true;
        records.add(new EstimatorRecord("klink", query, input, pending, klinkPrediction, actualMs, skip));
        records.add(new EstimatorRecord("lr", query, input, pending, lrPrediction, actualMs, skip));
    }

    /** Alg. 2 NextEpoch: j's window fired, so the pending deadline is over (unseen, if still unsettled). */
    void nextEpoch(Collection<EstimatorRecord> records) {
        settle(EstimatorRecord.UNKNOWN, SwmSkip.DEADLINE_CHANGED, records);
        if (klink.closeEpoch()) {
            lr.addEpoch(pending, observedAt);
        }
        pending = TaskSnapshot.NO_DEADLINE;
    }
}
