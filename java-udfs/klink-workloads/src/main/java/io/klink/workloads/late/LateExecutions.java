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
 * </ul>
 * Either way every window reports at cleanup its late re-executions and its measured maximum staleness
 * max t·n / (T·N) over the intervals between its executions (N: the late events it accepted).
 */
final class LateExecutions {

    public static final List<String> TRIGGERS = List.of("watermark", "staleness");
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

    private final boolean staleness;
    private final double bound;
    private final long latenessMs;
    private final double[] learned = new double[CELLS];
    private long learnedEvents;
    private double[] cachedPlan;

    LateExecutions(String trigger, double bound, long latenessMs) {
        if (!TRIGGERS.contains(trigger)) {
            throw new IllegalArgumentException("unknown late trigger '" + trigger + "'; valid: " + TRIGGERS);
        }
        this.staleness = trigger.equals("staleness");
        this.bound = bound;
        this.latenessMs = latenessMs;
        if (staleness && (!(bound > 0 && bound <= 1) || latenessMs <= 0)) {
            throw new IllegalArgumentException("the staleness trigger needs a bound in (0, 1] and a lateness > 0; got "
                    + bound + ", " + latenessMs + " ms");
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
        if (staleness) {
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
        return !staleness || passed || cleanup;
    }

    /** Whether the window's next planned execution falls at or before this age (always, with the watermark
     *  trigger: a window with new events executes on the next tick); consumes nothing. */
    boolean dueBy(Window w, long age) {
        return !staleness || (w.next < w.plan.length && w.plan[w.next] <= age);
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
            double[] times = StalenessTrigger.plan(f, bound).times();
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
