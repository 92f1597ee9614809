package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.TaskSnapshot;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Klink's <b>observe</b> step (thesis Alg. 2). For every windowed query j and each stream u its windows wait
 * for (u = j, or each join input), an {@link SwmTracker} keeps a {@link KlinkEstimator}:
 * <ul>
 *   <li>delay sample: now − (watermark ingested by u), added once per cycle when u's most upstream tasks ran
 *       during the last cycle or have no backlog — a paused source's frozen watermark would otherwise read
 *       as network delay;</li>
 *   <li>SWM ingestion: the first cycle in which u's ingested watermark reaches j's pending deadline D. When
 *       the crossing happened between two observed cycles its time is interpolated linearly between them
 *       ({@link #crossingTime}); otherwise (D was already passed when it became pending) it is known only
 *       as "≤ now";</li>
 *   <li>epoch boundary: j's next deadline changes (the window fired). Klink's epoch is closed and, when it
 *       was pushed, the LR baseline gets the same epoch (its SWM point, if the crossing was observed), so
 *       both predict from the same h epochs. A prediction of each for the new deadline is made and kept.</li>
 *   <li>Every prediction ends as one {@link EstimatorRecord} per estimator ({@link #drainRecords}): scored
 *       when its SWM's crossing was observed and both estimators had history, otherwise skipped with its
 *       {@link SwmSkip} reason — also for predictions still pending when the query's tasks vanish or the
 *       run ends ({@link #finish}).</li>
 * </ul>
 * Package-private helper of {@link KlinkPolicy}.
 */
final class SwmObserver {

    private final PolicyConfig config;
    private final Map<String, SwmTracker> trackers = new TreeMap<>();
    private final ArrayDeque<EstimatorRecord> records = new ArrayDeque<>();
    /** The tasks chosen in the last cycle (null before the first). */
    private Set<String> lastChosen;
    private long prevNow = SwmTracker.NONE;

    SwmObserver(PolicyConfig config) {
        this.config = config;
    }

    /** The tracker of the pair (input stream u, windowed query), or null if that pair has not been observed. */
    SwmTracker tracker(String input, String query) {
        return trackers.get(key(input, query));
    }

    private static String key(String input, String query) {
        return input + "->" + query;
    }

    /** Observes this cycle's watermarks and deadlines; trackers of pairs no longer in the topology end. */
    void observe(SchedulerState state, Topology topo) {
        Set<String> live = new HashSet<>();
        for (String unit : topo.units()) {
            if (!topo.hasWindow(unit)) {
                continue;
            }
            for (String u : topo.swmInputs(unit)) {
                String k = key(u, unit);
                live.add(k);
                observe(trackers.computeIfAbsent(k, x -> new SwmTracker(u, unit, config)), state, topo);
            }
        }
        trackers.entrySet().removeIf(e -> !live.contains(e.getKey()) && endTracker(e.getValue()));
    }

    private void observe(SwmTracker tr, SchedulerState state, Topology topo) {
        long now = state.nowMs();
        long wm = topo.ingestWatermark(tr.input);
        boolean known = wm != TaskSnapshot.NO_WATERMARK;
        if (known && ingestionRan(state, topo, tr.input)) {
            tr.klink.addDelay(now - wm); // Alg. 2 ProcessEvent
        }
        if (tr.hasPending() && tr.ingestedAt == SwmTracker.NONE && known && wm >= tr.pending) {
            swmIngested(tr, now, wm);
        }
        long d = topo.deadline(tr.query);
        if (tr.hasPending() && d != tr.pending) {
            tr.nextEpoch(records); // Alg. 2 NextEpoch: the window fired
        }
        if (!tr.hasPending() && d != TaskSnapshot.NO_DEADLINE) {
            tr.predict(d);
            if (known && wm >= d) {
                tr.ingestedAt = now;
                tr.settle(EstimatorRecord.UNKNOWN, SwmSkip.INGESTED_BEFORE_PREDICTION, records);
            }
        }
        tr.lastWm = wm;
    }

    /** The ingested watermark reached the pending deadline, which was set in an earlier cycle (watermark lastWm). */
    private void swmIngested(SwmTracker tr, long now, long wm) {
        boolean crossingSeen = tr.lastWm != TaskSnapshot.NO_WATERMARK && tr.lastWm < tr.pending
                && prevNow != SwmTracker.NONE;
        if (crossingSeen) {
            long t = crossingTime(prevNow, tr.lastWm, now, wm, tr.pending);
            tr.ingestedAt = t;
            tr.observedAt = t;
            tr.settle(t, tr.predictedWithHistory ? null : SwmSkip.NO_HISTORY, records);
        } else {
            tr.ingestedAt = now;
            tr.settle(EstimatorRecord.UNKNOWN, SwmSkip.CROSSING_NOT_OBSERVED, records);
        }
    }

    /**
     * When the ingested watermark reached the deadline, between two observations: linear
     * interpolation of the watermark between (prevNow, lastWm) and (now, wm) — the same reading of
     * "watermark trails the wall clock by the delay" that the delay samples use.
     */
    static long crossingTime(long prevNow, long lastWm, long now, long wm, long deadline) {
        if (wm <= lastWm || now <= prevNow) {
            return now;
        }
        double frac = (double) (deadline - lastWm) / (double) (wm - lastWm);
        return prevNow + Math.round(Math.min(1.0, Math.max(0.0, frac)) * (now - prevNow));
    }

    /** u's ingesting tasks ran during the last cycle, or have nothing to ingest. */
    private boolean ingestionRan(SchedulerState state, Topology topo, String u) {
        if (lastChosen == null) {
            return true;
        }
        for (String id : topo.ingestTaskIds(u)) {
            if (!lastChosen.contains(id) && state.runnable(id)) {
                return false;
            }
        }
        return true;
    }

    /** Remembers the cycle's choice and time, which the next cycle's observation reads. */
    void cycleDone(List<String> chosen, long nowMs) {
        lastChosen = new HashSet<>(chosen);
        prevNow = nowMs;
    }

    /** A tracker is dropped: its pending prediction, if any, ends unseen. Always true (for removeIf). */
    private boolean endTracker(SwmTracker tr) {
        tr.settle(EstimatorRecord.UNKNOWN, SwmSkip.RUN_ENDED, records);
        return true;
    }

    /** The run ends: every pending prediction is queued as skipped ({@link SwmSkip#RUN_ENDED}). */
    void finish() {
        trackers.values().forEach(this::endTracker);
        trackers.clear();
    }

    /** Returns and forgets the estimator records collected so far, oldest first. */
    List<EstimatorRecord> drainRecords() {
        List<EstimatorRecord> out = new ArrayList<>(records);
        records.clear();
        return out;
    }
}
