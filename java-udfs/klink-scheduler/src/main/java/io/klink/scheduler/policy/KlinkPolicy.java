package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.SchedulingPolicy;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * {@code klink} and {@code klink-nomm}: least expected slack first (Farhat, Daudjee, Querzoni, "Klink:
 * Progress-Aware Scheduling for Streaming Data Systems", SIGMOD 2021, §3.1-3.3, Eq. 1-10, Alg. 1; thesis
 * Alg. 1-3), with memory management (§3.4) unless constructed without it.
 *
 * <h2>Each cycle</h2>
 * <ol>
 *   <li><b>Observe</b> (thesis Alg. 2, {@link SwmObserver}): delay samples, SWM ingestion times and epoch
 *       boundaries per (input stream, windowed query), each prediction ending as {@link EstimatorRecord}s
 *       ({@link #drainEstimatorRecords}, {@link #finish}).</li>
 *   <li><b>Slack</b> (Eq. 1, Eq. 8, joins §3.3) and <b>order</b> ({@link SlackRanking}).</li>
 *   <li><b>Select</b>: Alg. 1 returns the argmin; we take the C pipelines of least slack that have work (then
 *       idle ones), each with all its tasks: C counts pipelines, for every policy (see {@link Selection}).
 *       Alg. 1 starts from min_sl = 0, which would select nothing when every slack is positive; we take the
 *       least slack regardless of sign.</li>
 *   <li><b>Light load</b> and <b>fill</b>, two work-conserving deviations ({@link CycleDemand}).</li>
 *   <li><b>Memory management</b> (§3.4, {@link MemoryManagement}) replaces the selection in memory mode.</li>
 * </ol>
 *
 * <h2>Starvation</h2>
 * The paper has no starvation bound, and neither has this policy by default: slack falls as a
 * query's SWM becomes due, so a held-back query ranks first in time. Aging is an option (a deviation,
 * {@code age} = X &gt; 0 cycles): a task that was runnable but not chosen for X cycles is forced in ahead
 * of every slack decision ({@code why} then carries {@code aged:}); a task that stays runnable runs
 * within X + ⌈n/C⌉ cycles (n pipelines, C slots).
 */
public final class KlinkPolicy implements SchedulingPolicy {

    /** Slack of a query without a deadline (see {@link SlackRanking#UNKNOWN_SLACK}). */
    static final double UNKNOWN_SLACK = SlackRanking.UNKNOWN_SLACK;

    private final PolicyConfig config;
    private final Aging aging;
    private final SwmObserver observer;
    private final SlackRanking ranking = new SlackRanking();
    private final MemoryManagement memory;
    /** The last cycle found every queue drainable within it, so nothing was paused (see {@link #choose}). */
    private boolean lightLoad;
    /** Aging forced a task in during the last cycle. */
    private boolean aged;
    private Map<String, Double> lastSlacks = Map.of();

    public KlinkPolicy(PolicyConfig config, boolean memoryManagement) {
        this.config = config;
        this.aging = new Aging(config.agingCycles());
        this.observer = new SwmObserver(config);
        this.memory = new MemoryManagement(memoryManagement, config);
    }

    @Override
    public String name() {
        return memory.enabled() ? "klink" : "klink-nomm";
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
        String prefix = (memory.active() ? "mm:" : lightLoad ? "light:" : "") + (aged ? "aged:" : "");
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
        return memory.active();
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
        SwmTracker t = observer.tracker(inputQuery, windowQuery);
        return t == null ? null : t.klink;
    }

    /** The LR baseline of the same pair as {@link #estimator}, or null if that pair has not been observed yet. */
    public LinearRegressionEstimator baseline(String inputQuery, String windowQuery) {
        SwmTracker t = observer.tracker(inputQuery, windowQuery);
        return t == null ? null : t.lr;
    }

    /**
     * Returns and forgets the estimator records collected so far, oldest first. The caller drains them
     * every cycle (the agent does), so the queue holds one cycle's records.
     */
    public List<EstimatorRecord> drainEstimatorRecords() {
        return observer.drainRecords();
    }

    /**
     * The run ends (the scheduler is deactivated): every pending prediction is queued as skipped
     * ({@link SwmSkip#RUN_ENDED}); drain the records afterwards.
     */
    public void finish() {
        observer.finish();
    }

    /** See {@link SwmObserver#crossingTime}. */
    static long crossingTime(long prevNow, long lastWm, long now, long wm, long deadline) {
        return SwmObserver.crossingTime(prevNow, lastWm, now, wm, deadline);
    }

    @Override
    public List<String> choose(SchedulerState state, int maxRunning) {
        Topology topo = Topology.of(state);
        Selection sel = new Selection(maxRunning, topo);
        observer.observe(state, topo);
        memory.update(state.memoryUsedFraction());
        SlackRanking.Ranking rank = ranking.rank(state, topo, observer);

        List<String> overdue = aging.overdue(state);
        aged = !overdue.isEmpty();
        overdue.forEach(sel::add);
        double budgetMs = CycleDemand.budgetMs(state.cycleMs(), maxRunning, config);
        lightLoad = !config.strictSlack() && !memory.active() && !aged && CycleDemand.light(topo, budgetMs);
        List<String> chosen;
        if (lightLoad) {
            chosen = List.copyOf(rank.taskOrder());
        } else if (memory.active()) {
            chosen = memory.choose(state, topo, rank.slack(), rank.taskOrder(), sel);
        } else {
            chosen = chooseBySlack(state, topo, rank.taskOrder(), sel, budgetMs);
        }

        ranking.ran(state, topo, chosen);
        aging.update(state, chosen);
        observer.cycleDone(chosen, state.nowMs());
        lastSlacks = Collections.unmodifiableMap(rank.slack());
        return chosen;
    }

    /** Least slack first, each pipeline whole; with {@code fill}, more pipelines while the cycle has CPU left. */
    private List<String> chooseBySlack(SchedulerState state, Topology topo, List<String> taskOrder, Selection sel,
                                       double budgetMs) {
        sel.addRunnable(state, taskOrder);
        if (config.fillCycle()) {
            sel.addRunnableUntil(state, taskOrder, unit -> CycleDemand.unitMs(topo, unit), budgetMs);
        }
        sel.fillIdle(taskOrder);
        return sel.toList();
    }
}
