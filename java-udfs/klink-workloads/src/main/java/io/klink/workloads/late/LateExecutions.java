package io.klink.workloads.late;

import java.util.List;

/**
 * When AION re-executes a past window, and how stale its results were (seed aion-late-events-esteves.txt §3.4).
 * Ages are watermark time since the window's end − 1, in ms: the on-time firing is at age ≈ 0, cleanup at the
 * allowed lateness T.
 * <ul>
 *   <li>{@code watermark}: a window with new late events re-executes on the next watermark or tick (the first
 *       slice's behaviour).
 *   <li>{@code staleness}: when a window fires, {@link StalenessTrigger#plan} places its executions for the bound
 *       over the late arrivals learned so far: the ages of the late events of every window already cleaned up
 *       (complete observations: an open window has not seen its late tail yet), counted in {@link #CELLS} equal
 *       cells of [0, T]; uniform until {@link #MIN_LEARNED} such events were seen. A window with new events
 *       re-executes on the first watermark or tick at or after each planned age, and at cleanup (the plan's last
 *       execution, at T).
 *   <li>{@code delta-t} and {@code delta-ev}: the baselines §3.4 and Fig. 9 compare it with, k executions per window
 *       ({@link StalenessTrigger#deltaT}: every T/k; {@link StalenessTrigger#deltaEv}: each time another 1/k of the
 *       late arrivals learned as above is expected, the last at T), carried out the same way.
 * </ul>
 * Under every trigger each window reports at cleanup its late re-executions and its measured maximum staleness
 * max t·n / (T·N) over the intervals between its executions (N: the late events it accepted).
 */
final class LateExecutions {

    public static final List<String> TRIGGERS = List.of("watermark", "staleness", "delta-t", "delta-ev");
    public static final int DEFAULT_EXECUTIONS = 10;
    public static final int MAX_EXECUTIONS = 1000;
    public static final int CELLS = 100;
    public static final long MIN_LEARNED = 100;

    /**
     * A window's staleness at cleanup: re-executions, planned executions (0: watermark trigger), late events, and
     * the bound it was kept for (T stays the fixed allowed lateness in its staleness).
     */
    public record Report(long windowEnd, int executions, int planned, long lateEvents, double maxStaleness,
                         long boundMs) {}

    /** One window's executions since it fired. */
    static final class Window {
        private final double[] ages = new double[CELLS];
        private double[] plan = new double[0];  // ages (ms) of the planned executions
        private int next;
        private long lastAge, lateSince, late;
        private double maxTn;
        private int executions;
    }

    private final String trigger;
    private final boolean planned;  // every trigger but watermark executes at planned ages
    private final double bound;
    private final int k;
    private final long latenessMs;
    private final double[] learned = new double[CELLS];
    private long learnedEvents;
    private double[] cachedPlan;

    /** {@code bound}: the staleness trigger's; {@code k}: executions per window of delta-t and delta-ev. */
    LateExecutions(String trigger, double bound, int k, long latenessMs) {
        if (!TRIGGERS.contains(trigger)) {
            throw new IllegalArgumentException("unknown late trigger '" + trigger + "'; valid: " + TRIGGERS);
        }
        this.trigger = trigger;
        this.planned = !trigger.equals("watermark");
        this.bound = bound;
        this.k = k;
        this.latenessMs = latenessMs;
        if (trigger.equals("staleness") && (!(bound > 0 && bound <= 1) || latenessMs <= 0)) {
            throw new IllegalArgumentException("the staleness trigger needs a bound in (0, 1] and a lateness > 0; got "
                    + bound + ", " + latenessMs + " ms");
        }
        if (trigger.startsWith("delta-") && (k < 1 || k > MAX_EXECUTIONS || latenessMs <= 0)) {
            throw new IllegalArgumentException("the " + trigger + " trigger needs 1 to " + MAX_EXECUTIONS
                    + " executions per window and a lateness > 0; got " + k + ", " + latenessMs + " ms");
        }
    }

    private int cell(long age) {
        return (int) Math.min(CELLS - 1, Math.max(0, age) * CELLS / Math.max(1, latenessMs));
    }

    /** A late event accepted at this age. */
    void late(Window w, long age) {
        w.ages[cell(age)]++;
        w.lateSince++;
        w.late++;
    }

    /** The on-time firing at this age: the start of the first interval, and the plan. */
    void fired(Window w, long age) {
        w.lastAge = age;
        w.lateSince = 0;  // a window whose first events were late: those are in its first execution
        if (planned) {
            w.plan = plan();
        }
    }

    /**
     * Whether a window with new events executes now (its age now; {@code cleanup}: its last chance), consuming
     * the planned ages passed.
     */
    boolean due(Window w, long age, boolean cleanup) {
        boolean passed = false;
        while (w.next < w.plan.length && w.plan[w.next] <= age) {
            w.next++;
            passed = true;
        }
        return !planned || passed || cleanup;
    }

    /** Whether the window's next planned execution falls at or before this age (always, with the watermark
     *  trigger: a window with new events executes on the next tick); consumes nothing. */
    boolean dueBy(Window w, long age) {
        return !planned || (w.next < w.plan.length && w.plan[w.next] <= age);
    }

    /** A re-execution at this age. */
    void executed(Window w, long age) {
        w.maxTn = Math.max(w.maxTn, (double) (age - w.lastAge) * w.lateSince);
        w.lastAge = age;
        w.lateSince = 0;
        w.executions++;
    }

    /** At cleanup: the window's report; its late arrivals join the learned distribution. */
    Report cleanedUp(long windowEnd, Window w, long boundMs) {
        for (int i = 0; i < CELLS; i++) {
            learned[i] += w.ages[i];
        }
        learnedEvents += w.late;
        if (w.late > 0) {
            cachedPlan = null;
        }
        double st = w.late == 0 ? 0 : w.maxTn / ((double) latenessMs * w.late);
        return new Report(windowEnd, w.executions, w.plan.length, w.late, st, boundMs);
    }

    /** The planned ages (ms) for the distribution learned so far. */
    private double[] plan() {
        if (cachedPlan == null) {
            LateArrivals f = learnedEvents >= MIN_LEARNED ? LateArrivals.fromCounts(learned) : LateArrivals.uniform();
            double[] times = switch (trigger) {
                case "delta-t" -> StalenessTrigger.deltaT(k);
                case "delta-ev" -> StalenessTrigger.deltaEv(f, k);
                default -> StalenessTrigger.plan(f, bound).times();
            };
            cachedPlan = new double[times.length];
            for (int i = 0; i < times.length; i++) {
                cachedPlan[i] = times[i] * latenessMs;
            }
        }
        return cachedPlan;
    }

    long learnedEvents() {
        return learnedEvents;
    }
}
