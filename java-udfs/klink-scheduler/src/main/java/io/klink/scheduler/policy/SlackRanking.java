package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.TaskSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Klink's <b>slack</b> and <b>order</b> steps (paper §3.1-3.3, Eq. 1, 8, Alg. 1).
 *
 * <p>Slack of each pair (u, j), with cost = time to drain every queue on u's and j's pipeline
 * ({@link KlinkMath#drainCostNs}):
 * <ul>
 *   <li>SWM already ingested at time w ≤ now: Eq. 1, (w − now) − cost;</li>
 *   <li>now past t_max (SWM overdue): Eq. 1 with w = now, i.e. −cost (Alg. 1 would return 0 here, ranking
 *       an overdue window behind every query with negative slack);</li>
 *   <li>otherwise Eq. 8 over [max(now, t_min), t_max] in slices of r.</li>
 * </ul>
 * A join's slack is the minimum over its inputs (§3.3); its tasks go first, then its inputs' tasks in
 * increasing slack (the lagging input first). A query whose window task has not reported a deadline yet (it
 * has seen no data) counts as due now, slack 0 ({@link #UNKNOWN_SLACK}): it runs when no other query is
 * overdue, so it can learn its deadline. The paper's windows know their deadline from the window definition
 * before any data; with +∞ instead, C = 1 and another query always runnable, such a query would never run.
 *
 * <p>Order: queries by slack, ties by the query that ran least recently, then oldest queued record, then id.
 * Package-private helper of {@link KlinkPolicy}.
 */
final class SlackRanking {

    /** Slack of a query without a deadline: due now, behind overdue queries, ahead of those not yet due. */
    static final double UNKNOWN_SLACK = 0.0;

    /** Each unit's slack (ms) and every task in the order Klink prefers them. */
    record Ranking(Map<String, Double> slack, List<String> taskOrder) {}

    /** Cycle in which a task of each query last ran: equal slacks (e.g. no deadline yet) take turns. */
    private final Map<String, Long> lastRunCycle = new TreeMap<>();
    private long cycle;

    Ranking rank(SchedulerState state, Topology topo, SwmObserver observer) {
        Map<String, Double> slack = new TreeMap<>();
        Map<String, List<String>> inputOrder = new TreeMap<>();
        for (String unit : topo.units()) {
            Map<String, Double> perInput = new TreeMap<>();
            for (String u : topo.swmInputs(unit)) {
                perInput.put(u, inputSlack(state, topo, observer.tracker(u, unit), u, unit));
            }
            List<String> ins = new ArrayList<>(perInput.keySet());
            ins.sort(Comparator.<String>comparingDouble(perInput::get).thenComparing(Comparator.naturalOrder()));
            inputOrder.put(unit, ins);
            slack.put(unit, KlinkMath.joinSlack(perInput.values().stream().mapToDouble(Double::doubleValue).toArray()));
        }
        List<String> order = new ArrayList<>(topo.units());
        order.sort(Comparator.<String>comparingDouble(slack::get)
                .thenComparingLong(q -> lastRunCycle.getOrDefault(q, -1L))
                .thenComparingLong(q -> arrivalKey(topo.oldestArrival(q)))
                .thenComparing(Comparator.naturalOrder()));
        List<String> taskOrder = new ArrayList<>();
        for (String unit : order) {
            taskOrder.addAll(topo.unitTasks(unit, inputOrder.get(unit)));
        }
        return new Ranking(slack, taskOrder);
    }

    private static double inputSlack(SchedulerState state, Topology topo, SwmTracker tr, String u, String unit) {
        long d = topo.deadline(unit);
        if (d == TaskSnapshot.NO_DEADLINE || tr == null || tr.klinkPrediction == null) {
            return UNKNOWN_SLACK;
        }
        double now = state.nowMs();
        double cost = Topology.drainCostMs(topo.path(u, unit));
        if (tr.ingestedAt != SwmTracker.NONE) {
            return KlinkMath.slack(tr.ingestedAt, now, cost);
        }
        SwmInterval iv = tr.klinkPrediction;
        if (now > iv.tMaxMs()) {
            return KlinkMath.slack(now, now, cost);
        }
        return KlinkMath.expectedSlack(now, iv.meanMs(), iv.sigmaMs(), iv.tMinMs(), iv.tMaxMs(),
                state.cycleMs(), cost);
    }

    private static long arrivalKey(long arrival) {
        return arrival == TaskSnapshot.UNKNOWN_ARRIVAL ? Long.MAX_VALUE : arrival;
    }

    /** Records which queries ran in this cycle (the least recently run wins a tie in the next). */
    void ran(SchedulerState state, Topology topo, List<String> chosen) {
        cycle++;
        lastRunCycle.keySet().retainAll(topo.queries());
        for (String id : chosen) {
            lastRunCycle.put(state.tasks().get(id).queryId(), cycle);
        }
    }
}
