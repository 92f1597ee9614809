package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.SchedulingPolicy;
import io.klink.scheduler.TaskSnapshot;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code klink} and {@code klink-nomm}: least expected slack first (paper §3.1-3.3, Eq. 1-10,
 * Alg. 1; thesis Alg. 1-3), with memory management (§3.4) unless constructed without it.
 *
 * <h2>Each cycle</h2>
 * <ol>
 *   <li><b>Observe</b> (thesis Alg. 2). For every windowed query j and each stream u its windows wait
 *       for (u = j, or each join input), a tracker keeps an {@link KlinkEstimator}:
 *       <ul>
 *         <li>delay sample: now − (watermark ingested by u), added once per cycle when u's most
 *             upstream tasks ran during the last cycle or have no backlog — a paused source's frozen
 *             watermark would otherwise read as network delay;</li>
 *         <li>SWM ingestion: the first cycle in which u's ingested watermark reaches j's pending
 *             deadline D. When the crossing happened between two observed cycles its time is
 *             interpolated linearly between them ({@link #crossingTime}); otherwise (D was already
 *             passed when it became pending) it is known only as "≤ now";</li>
 *         <li>epoch boundary: j's next deadline changes (the window fired). Klink's epoch is closed
 *             and, when it was pushed, the LR baseline gets the same epoch (its SWM point, if the
 *             crossing was observed), so both predict from the same h epochs. A prediction of each for
 *             the new deadline is made and kept.</li>
 *         <li>Every prediction ends as one {@link EstimatorRecord} per estimator
 *             ({@link #drainEstimatorRecords}): scored when its SWM's crossing was observed and both
 *             estimators had history, otherwise skipped with its {@link SwmSkip} reason — also for
 *             predictions still pending when the query's tasks vanish or the run ends ({@link #finish}).</li>
 *       </ul></li>
 *   <li><b>Slack</b> of each pair (u, j), with cost = time to drain every queue on u's and j's
 *       pipeline ({@link KlinkMath#drainCostNs}):
 *       <ul>
 *         <li>SWM already ingested at time w ≤ now: Eq. 1, (w − now) − cost;</li>
 *         <li>now past t_max (SWM overdue): Eq. 1 with w = now, i.e. −cost (Alg. 1 would return 0
 *             here, ranking an overdue window behind every query with negative slack);</li>
 *         <li>otherwise Eq. 8 over [max(now, t_min), t_max] in slices of r.</li>
 *       </ul>
 *       A join's slack is the minimum over its inputs (§3.3); its tasks go first, then its inputs'
 *       tasks in increasing slack (the lagging input first). A query whose window task has not reported
 *       a deadline yet (it has seen no data) counts as due now, slack 0 ({@link #UNKNOWN_SLACK}): it
 *       runs when no other query is overdue, so it can learn its deadline. The paper's windows know
 *       their deadline from the window definition before any data; with +∞ instead, C = 1 and another
 *       query always runnable, such a query would never run.</li>
 *   <li><b>Order</b> queries by slack, ties by the query that ran least recently, then oldest queued
 *       record, then id. Alg. 1 returns the argmin; we take the C pipelines of least slack that have
 *       work (then idle ones), each with all its tasks: C counts pipelines, for every policy (see
 *       {@link Selection}). Alg. 1 starts from min_sl = 0, which would select nothing when
 *       every slack is positive; we take the least slack regardless of sign.</li>
 *   <li><b>Light load</b> (a deviation, on unless {@code strict}): when all queued work fits in one cycle
 *       on the CPU the TaskManager really has (min(C, {@code cpu}) cores: pinning and quota count),
 *       nothing is paused ({@link #demandMs}; {@code why} starts with {@code light:}); {@code strict}
 *       gives the paper's selection in every cycle.</li>
 *   <li><b>Fill</b> (a deviation, off unless {@code fill}): when the C least-slack pipelines hold less work
 *       than one cycle's CPU, r · min(C, cpu), further runnable pipelines join in slack order until they
 *       do, so the cores are not left idle while pipelines wait paused.</li>
 * </ol>
 *
 * <h2>Memory management (§3.4)</h2>
 * When memory used ≥ b the policy enters memory mode: queries are ranked by the events processing
 * them would remove, p = max_k min(sz_k, events processable in r) · (1 − Π_{i≤k} S_i) over the prefixes
 * of each pipeline's non-source stages ({@link KlinkMath#memoryRelief}), ties by least slack, and only
 * the tasks of the best prefix run; remaining slots follow slack order without source tasks (no new
 * ingestion while memory is short). Memory mode ends when memory &lt; b, or after K consecutive cycles
 * ({@code mmcycles}); in the latter case slack ordering runs for K cycles before memory mode may start
 * again, so under persistent pressure at most half the cycles are memory cycles.
 *
 * <h2>Starvation</h2>
 * The paper has no starvation bound, and neither has this policy by default: slack falls as a
 * query's SWM becomes due, so a held-back query ranks first in time. Aging is an option (a deviation,
 * {@code age} = X &gt; 0 cycles): a task that was runnable but not chosen for X cycles is forced in ahead
 * of every slack decision ({@code why} then carries {@code aged:}); a task that stays runnable runs
 * within X + ⌈n/C⌉ cycles (n pipelines, C slots).
 */
public final class KlinkPolicy implements SchedulingPolicy {

    private static final long NONE = Long.MIN_VALUE;
    /** Slack of a query without a deadline: due now, behind overdue queries, ahead of those not yet due. */
    static final double UNKNOWN_SLACK = 0.0;

    private final PolicyConfig config;
    private final boolean memoryManagement;
    private final Aging aging;
    private final Map<String, Tracker> trackers = new TreeMap<>();
    private final ArrayDeque<EstimatorRecord> records = new ArrayDeque<>();
    private Set<String> lastChosen;
    private long prevNow = NONE;
    private boolean memoryMode;
    /** The last cycle found every queue drainable within it, so nothing was paused (see {@link #choose}). */
    private boolean lightLoad;
    /** Aging forced a task in during the last cycle. */
    private boolean aged;
    private int memoryModeCycles;
    private int cooldown;
    private Map<String, Double> lastSlacks = Map.of();
    /** Cycle in which a task of each query last ran: equal slacks (e.g. no deadline yet) take turns. */
    private final Map<String, Long> lastRunCycle = new TreeMap<>();
    private long cycle;

    /** Per (input stream, windowed query) estimation state. */
    private static final class Tracker {
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

        Tracker(String input, String query, PolicyConfig c) {
            this.input = input;
            this.query = query;
            this.klink = new KlinkEstimator(c.history(), c.confidence(), c.cycleMs());
            this.lr = new LinearRegressionEstimator(c.history(), c.confidence());
        }
    }

    public KlinkPolicy(PolicyConfig config, boolean memoryManagement) {
        this.config = config;
        this.memoryManagement = memoryManagement;
        this.aging = new Aging(config.agingCycles());
    }

    @Override
    public String name() {
        return memoryManagement ? "klink" : "klink-nomm";
    }

    /** f, the confidence of the predicted SWM intervals. */
    public double confidence() {
        return config.confidence();
    }

    /**
     * Each unit's slack in ms ({@code q00=-120;q01=inf}), prefixed {@code mm:} in memory mode or
     * {@code light:} at light load, then {@code aged:} when aging forced a task in.
     */
    @Override
    public String explainLastChoice() {
        String prefix = (memoryMode ? "mm:" : lightLoad ? "light:" : "") + (aged ? "aged:" : "");
        StringBuilder out = new StringBuilder(prefix);
        lastSlacks.forEach((unit, slack) -> {
            if (out.length() > prefix.length()) {
                out.append(';');
            }
            out.append(unit).append('=').append(Double.isFinite(slack) ? Long.toString(Math.round(slack)) : "inf");
        });
        return out.toString();
    }

    /** True while the last cycle was decided by memory management. */
    public boolean inMemoryMode() {
        return memoryMode;
    }

    /** Slack (ms) per scheduling unit computed in the last cycle (for per-cycle result rows). */
    public Map<String, Double> lastSlacks() {
        return lastSlacks;
    }

    /**
     * The estimator of the SWMs that stream {@code inputQuery} delivers to {@code windowQuery}'s
     * windows (equal ids for a plain query), or null if that pair has not been observed yet. Its
     * {@link KlinkEstimator#predict} gives the interval for any next deadline.
     */
    public KlinkEstimator estimator(String inputQuery, String windowQuery) {
        Tracker t = trackers.get(key(inputQuery, windowQuery));
        return t == null ? null : t.klink;
    }

    /** The LR baseline of the same pair as {@link #estimator}, or null if that pair has not been observed yet. */
    public LinearRegressionEstimator baseline(String inputQuery, String windowQuery) {
        Tracker t = trackers.get(key(inputQuery, windowQuery));
        return t == null ? null : t.lr;
    }

    /**
     * Returns and forgets the estimator records collected so far, oldest first. The caller drains them
     * every cycle (the agent does), so the queue holds one cycle's records.
     */
    public List<EstimatorRecord> drainEstimatorRecords() {
        List<EstimatorRecord> out = new ArrayList<>(records);
        records.clear();
        return out;
    }

    @Override
    public List<String> choose(SchedulerState state, int maxRunning) {
        Topology topo = Topology.of(state);
        Selection sel = new Selection(maxRunning, topo);
        observe(state, topo);
        updateMemoryMode(state.memoryUsedFraction());

        Map<String, Double> slack = new TreeMap<>();
        Map<String, List<String>> inputOrder = new TreeMap<>();
        for (String unit : topo.units()) {
            Map<String, Double> perInput = new TreeMap<>();
            for (String u : topo.swmInputs(unit)) {
                perInput.put(u, inputSlack(state, topo, u, unit));
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

        List<String> overdue = aging.overdue(state);
        aged = !overdue.isEmpty();
        overdue.forEach(sel::add);
        List<String> taskOrder = new ArrayList<>();
        for (String unit : order) {
            taskOrder.addAll(topo.unitTasks(unit, inputOrder.get(unit)));
        }
        List<String> chosen;
        double cycleBudgetMs = state.cycleMs() * Math.min(maxRunning, config.cpuCores());
        lightLoad = !config.strictSlack() && !memoryMode && !aged && demandMs(topo) <= cycleBudgetMs;
        if (lightLoad) {
            chosen = List.copyOf(taskOrder);
        } else if (memoryMode) {
            List<String> nonSource = new ArrayList<>();
            for (String id : taskOrder) {
                if (!state.tasks().get(id).isSource()) {
                    nonSource.add(id);
                }
            }
            for (List<String> tasks : List.of(reliefTasks(state, topo, slack), nonSource)) {
                tasks.stream().filter(state::runnable).forEach(sel::addOnly);
            }
            nonSource.forEach(sel::addOnly);
            chosen = sel.toList();
        } else {
            sel.addRunnable(state, taskOrder); // least slack first, each pipeline whole
            if (config.fillCycle()) {
                sel.addRunnableUntil(state, taskOrder, unit -> unitDemandMs(topo, unit), cycleBudgetMs);
            }
            sel.fillIdle(taskOrder);
            chosen = sel.toList();
        }

        cycle++;
        lastRunCycle.keySet().retainAll(topo.queries());
        for (String id : chosen) {
            lastRunCycle.put(state.tasks().get(id).queryId(), cycle);
        }
        aging.update(state, chosen);
        lastChosen = new HashSet<>(chosen);
        prevNow = state.nowMs();
        lastSlacks = Collections.unmodifiableMap(slack);
        return chosen;
    }

    /**
     * Work conservation: when everything queued can be processed within this cycle on C cores (demand ≤
     * r · C), no query's window waits for another's, so pausing would only idle cores (at light load the
     * TaskManager's core was 75 % idle while two of four pipelines sat paused). Every task then runs, as
     * under the OS; slack ordering starts as soon as the queued work exceeds what one cycle can drain.
     */
    private static double demandMs(Topology topo) {
        double total = 0;
        for (String unit : topo.units()) {
            total += unitDemandMs(topo, unit);
        }
        return total;
    }

    /** CPU time (ms) to drain every queue on one pipeline's paths. */
    private static double unitDemandMs(Topology topo, String unit) {
        double total = 0;
        for (String u : topo.swmInputs(unit)) {
            total += Topology.drainCostMs(topo.path(u, unit));
        }
        return total;
    }

    // ------------------------------------------------------------------ observation

    private static String key(String input, String query) {
        return input + "->" + query;
    }

    private void observe(SchedulerState state, Topology topo) {
        long now = state.nowMs();
        Set<String> live = new HashSet<>();
        for (String unit : topo.units()) {
            if (!topo.hasWindow(unit)) {
                continue;
            }
            for (String u : topo.swmInputs(unit)) {
                String k = key(u, unit);
                live.add(k);
                Tracker tr = trackers.computeIfAbsent(k, x -> new Tracker(u, unit, config));
                long wm = topo.ingestWatermark(u);
                boolean known = wm != TaskSnapshot.NO_WATERMARK;
                if (known && ingestionRan(state, topo, u)) {
                    tr.klink.addDelay(now - wm); // Alg. 2 ProcessEvent
                }
                if (tr.pending != TaskSnapshot.NO_DEADLINE && tr.ingestedAt == NONE && known && wm >= tr.pending) {
                    // pending was set in an earlier cycle, whose watermark is lastWm
                    boolean crossingSeen = tr.lastWm != TaskSnapshot.NO_WATERMARK
                            && tr.lastWm < tr.pending && prevNow != NONE;
                    if (crossingSeen) {
                        long t = crossingTime(prevNow, tr.lastWm, now, wm, tr.pending);
                        tr.ingestedAt = t;
                        tr.observedAt = t;
                        settle(tr, t, tr.predictedWithHistory ? null : SwmSkip.NO_HISTORY);
                    } else {
                        tr.ingestedAt = now;
                        settle(tr, EstimatorRecord.UNKNOWN, SwmSkip.CROSSING_NOT_OBSERVED);
                    }
                }
                long d = topo.deadline(unit);
                if (tr.pending != TaskSnapshot.NO_DEADLINE && d != tr.pending) {
                    settle(tr, EstimatorRecord.UNKNOWN, SwmSkip.DEADLINE_CHANGED);
                    if (tr.klink.closeEpoch()) { // Alg. 2 NextEpoch: the window fired
                        tr.lr.addEpoch(tr.pending, tr.observedAt);
                    }
                    tr.pending = TaskSnapshot.NO_DEADLINE;
                }
                if (tr.pending == TaskSnapshot.NO_DEADLINE && d != TaskSnapshot.NO_DEADLINE) {
                    predict(tr, d);
                    if (known && wm >= d) {
                        tr.ingestedAt = now;
                        settle(tr, EstimatorRecord.UNKNOWN, SwmSkip.INGESTED_BEFORE_PREDICTION);
                    }
                }
                tr.lastWm = wm;
            }
        }
        trackers.entrySet().removeIf(e -> !live.contains(e.getKey()) && endTracker(e.getValue()));
    }

    /** The pending deadline's predictions, made when its window became the next to fire. */
    private static void predict(Tracker tr, long deadline) {
        tr.pending = deadline;
        tr.ingestedAt = NONE;
        tr.observedAt = EstimatorRecord.UNKNOWN;
        tr.klinkPrediction = tr.klink.predict(deadline);
        tr.lrPrediction = tr.lr.predict(deadline);
        tr.predictedWithHistory = tr.klink.history().epochs() > 0 && tr.lr.hasHistory();
        tr.settled = false;
    }

    /** Queues the pending prediction's records, once: scored if {@code skip} is null. */
    private void settle(Tracker tr, long actualMs, SwmSkip skip) {
        if (tr.settled) {
            return;
        }
        tr.settled = true;
        records.addLast(new EstimatorRecord("klink", tr.query, tr.input, tr.pending, tr.klinkPrediction, actualMs,
                skip));
        records.addLast(new EstimatorRecord("lr", tr.query, tr.input, tr.pending, tr.lrPrediction, actualMs, skip));
    }

    /** A tracker is dropped: its pending prediction, if any, ends unseen. Always true (for removeIf). */
    private boolean endTracker(Tracker tr) {
        settle(tr, EstimatorRecord.UNKNOWN, SwmSkip.RUN_ENDED);
        return true;
    }

    /**
     * The run ends (the scheduler is deactivated): every pending prediction is queued as skipped
     * ({@link SwmSkip#RUN_ENDED}); drain the records afterwards.
     */
    public void finish() {
        trackers.values().forEach(this::endTracker);
        trackers.clear();
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

    // ------------------------------------------------------------------ slack

    private double inputSlack(SchedulerState state, Topology topo, String u, String unit) {
        long d = topo.deadline(unit);
        Tracker tr = trackers.get(key(u, unit));
        if (d == TaskSnapshot.NO_DEADLINE || tr == null || tr.klinkPrediction == null) {
            return UNKNOWN_SLACK;
        }
        double now = state.nowMs();
        double cost = Topology.drainCostMs(topo.path(u, unit));
        if (tr.ingestedAt != NONE) {
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

    // ------------------------------------------------------------------ memory management

    private void updateMemoryMode(double memoryUsed) {
        if (!memoryManagement) {
            memoryMode = false;
            return;
        }
        double b = config.memoryBound();
        int k = config.memoryCycles();
        if (memoryMode) {
            if (memoryUsed < b) {
                memoryMode = false;
            } else if (memoryModeCycles >= k) {
                memoryMode = false;
                cooldown = k - 1; // this cycle plus K − 1 more order by slack
            } else {
                memoryModeCycles++;
            }
        } else if (cooldown > 0) {
            cooldown--;
        } else if (memoryUsed >= b) {
            memoryMode = true;
            memoryModeCycles = 1;
        }
    }

    /** Tasks of the pipelines prefixes with the largest p (§3.4), best first, each downstream first. */
    private List<String> reliefTasks(SchedulerState state, Topology topo, Map<String, Double> slack) {
        record Relief(String unit, double p, List<String> tasks) {
        }
        List<Relief> reliefs = new ArrayList<>();
        for (String unit : topo.units()) {
            Relief best = null;
            for (String u : topo.swmInputs(unit)) {
                List<Topology.Stage> path = new ArrayList<>();
                for (Topology.Stage s : topo.path(u, unit)) {
                    if (!s.source()) {
                        path.add(s);
                    }
                }
                if (path.isEmpty()) {
                    continue;
                }
                long[] queued = new long[path.size()];
                double[] cost = new double[path.size()];
                double[] sel = new double[path.size()];
                for (int i = 0; i < path.size(); i++) {
                    queued[i] = path.get(i).queued();
                    cost[i] = path.get(i).costNs();
                    sel[i] = path.get(i).selectivity();
                }
                double[] p = KlinkMath.memoryRelief(queued, cost, sel, state.cycleMs());
                int kBest = 0;
                for (int k = 1; k < p.length; k++) {
                    if (p[k] > p[kBest]) {
                        kBest = k;
                    }
                }
                if (best == null || p[kBest] > best.p()) {
                    List<String> tasks = new ArrayList<>();
                    for (int i = kBest; i >= 0; i--) {
                        tasks.addAll(path.get(i).taskIds());
                    }
                    best = new Relief(unit, p[kBest], tasks);
                }
            }
            if (best != null && best.p() > 0.0) {
                reliefs.add(best);
            }
        }
        reliefs.sort(Comparator.comparingDouble(Relief::p).reversed()
                .thenComparingDouble(r -> slack.get(r.unit()))
                .thenComparing(Relief::unit));
        List<String> out = new ArrayList<>();
        for (Relief r : reliefs) {
            out.addAll(r.tasks());
        }
        return out;
    }
}
