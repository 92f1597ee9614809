package io.klink.scheduler.policy;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Scheduler and policy parameters, parsed from {@code key=value} options (the agent's options map;
 * keys this class does not know are ignored here: the agent's control file reader refuses keys neither it nor
 * {@link #DEFAULTS} knows).
 *
 * @param cycleMs      r: scheduling cycle, ms (&gt; 0; paper: 120)
 * @param history      h: epochs of history for Klink's and LR's estimators (&gt;= 1; paper: 400)
 * @param confidence   f: confidence of [t_min, t_max] (0 &lt; f &lt; 1; paper: 0.95)
 * @param memoryBound  b: memory-used fraction that triggers Klink's memory management (0 &lt; b &lt;= 1;
 *                     default 0.8; b = 1 triggers only when memory is full)
 * @param cores        C: pipelines allowed to run at once, for every policy (&gt;= 1; default: processors
 *                     available to this JVM). The scheduler passes it to {@code choose} as maxRunning.
 * @param cpuCores     the CPU the TaskManager really has, in cores (&gt; 0; key {@code cpu}; the agent sets it
 *                     from the CPU affinity and the cgroup CPU quota): Klink's light-load rule compares
 *                     queued work with r · min(C, cpu)
 * @param quantum      rr's quantum, in cycles (&gt;= 1; default 1)
 * @param agingCycles  X: a runnable task not chosen for X cycles is forced in (&gt;= 0; default 0 = off, as
 *                     in the paper; a deviation when on). Used by klink, fcfs, hr and sbox.
 * @param memoryCycles K: the longest stretch of memory-management cycles; after K cycles with memory
 *                     still &gt;= b Klink orders by slack for K cycles before it may re-enter
 *                     (&gt;= 1; default 25, ≈ 3 s at r = 120 ms, the paper's example period)
 * @param strictSlack  Klink selects C pipelines by slack every cycle, also when all queued work fits in one
 *                     cycle (the paper's behaviour); default false: such cycles pause nothing (key {@code strict},
 *                     1/true)
 * @param fillCycle    Klink adds pipelines beyond C, in slack order, while the queued work of those chosen
 *                     is less than one cycle's CPU, r · min(C, cpu) (key {@code fill}, 1/true; default false,
 *                     the paper's C pipelines): a deviation that keeps the TaskManager's CPU busy when the
 *                     least-slack pipelines would drain before the cycle ends
 */
public record PolicyConfig(
        long cycleMs,
        int history,
        double confidence,
        double memoryBound,
        int cores,
        double cpuCores,
        int quantum,
        int agingCycles,
        int memoryCycles,
        boolean strictSlack,
        boolean fillCycle) {

    public static final long DEFAULT_CYCLE_MS = 120;
    public static final int DEFAULT_HISTORY = 400;
    public static final double DEFAULT_CONFIDENCE = 0.95;
    public static final double DEFAULT_MEMORY_BOUND = 0.8;
    public static final int DEFAULT_QUANTUM = 1;
    public static final int DEFAULT_AGING_CYCLES = 0;
    public static final int DEFAULT_MEMORY_CYCLES = 25;

    /** Every key {@link #parse} reads and its default; null = decided at run time (the processors available). */
    public static final Map<String, Object> DEFAULTS = defaultsByKey();

    private static Map<String, Object> defaultsByKey() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("r", DEFAULT_CYCLE_MS);
        d.put("h", DEFAULT_HISTORY);
        d.put("f", DEFAULT_CONFIDENCE);
        d.put("b", DEFAULT_MEMORY_BOUND);
        d.put("C", null);
        d.put("cpu", null);
        d.put("quantum", DEFAULT_QUANTUM);
        d.put("age", DEFAULT_AGING_CYCLES);
        d.put("mmcycles", DEFAULT_MEMORY_CYCLES);
        d.put("strict", false);
        d.put("fill", false);
        return Collections.unmodifiableMap(d);
    }

    public PolicyConfig {
        if (cycleMs <= 0) {
            throw new IllegalArgumentException("parameter r (cycle, ms) must be > 0, got " + cycleMs);
        }
        if (history < 1) {
            throw new IllegalArgumentException("parameter h (epoch history) must be >= 1, got " + history);
        }
        if (!(confidence > 0.0 && confidence < 1.0)) {
            throw new IllegalArgumentException("parameter f (confidence) must satisfy 0 < f < 1, got " + confidence);
        }
        if (!(memoryBound > 0.0 && memoryBound <= 1.0)) {
            throw new IllegalArgumentException("parameter b (memory bound) must satisfy 0 < b <= 1, got " + memoryBound);
        }
        if (cores < 1) {
            throw new IllegalArgumentException("parameter C (cores) must be >= 1, got " + cores);
        }
        if (!(cpuCores > 0.0) || Double.isInfinite(cpuCores)) {
            throw new IllegalArgumentException("parameter cpu (cores) must be > 0, got " + cpuCores);
        }
        if (quantum < 1) {
            throw new IllegalArgumentException("parameter quantum (rr, cycles) must be >= 1, got " + quantum);
        }
        if (agingCycles < 0) {
            throw new IllegalArgumentException("parameter age (cycles, 0 = off) must be >= 0, got " + agingCycles);
        }
        if (memoryCycles < 1) {
            throw new IllegalArgumentException("parameter mmcycles must be >= 1, got " + memoryCycles);
        }
    }

    public static PolicyConfig defaults() {
        return parse(Map.of());
    }

    /**
     * Parses keys r, h, f, b, C, cpu, quantum, age, mmcycles, strict, fill; missing keys take their defaults.
     *
     * @throws IllegalArgumentException naming the key if a value is not a number or out of range
     */
    public static PolicyConfig parse(Map<String, String> params) {
        Map<String, String> p = params == null ? Map.of() : params;
        return new PolicyConfig(
                longParam(p, "r", DEFAULT_CYCLE_MS),
                intParam(p, "h", DEFAULT_HISTORY),
                doubleParam(p, "f", DEFAULT_CONFIDENCE),
                doubleParam(p, "b", DEFAULT_MEMORY_BOUND),
                intParam(p, "C", Runtime.getRuntime().availableProcessors()),
                doubleParam(p, "cpu", Runtime.getRuntime().availableProcessors()),
                intParam(p, "quantum", DEFAULT_QUANTUM),
                intParam(p, "age", DEFAULT_AGING_CYCLES),
                intParam(p, "mmcycles", DEFAULT_MEMORY_CYCLES),
                booleanParam(p, "strict"),
                booleanParam(p, "fill"));
    }

    private static boolean booleanParam(Map<String, String> p, String key) {
        String v = raw(p, key);
        if (v == null || v.equals("0") || v.equalsIgnoreCase("false")) {
            return false;
        }
        if (v.equals("1") || v.equalsIgnoreCase("true")) {
            return true;
        }
        throw new IllegalArgumentException("parameter " + key + " must be true/false or 1/0, got " + v);
    }

    private static String raw(Map<String, String> p, String key) {
        String v = p.get(key);
        return v == null || v.isBlank() ? null : v.trim();
    }

    private static long longParam(Map<String, String> p, String key, long fallback) {
        String v = raw(p, key);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter " + key + " must be an integer, got '" + v + "'");
        }
    }

    private static int intParam(Map<String, String> p, String key, int fallback) {
        long v = longParam(p, key, fallback);
        if (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE) {
            throw new IllegalArgumentException("parameter " + key + " is out of range: " + v);
        }
        return (int) v;
    }

    private static double doubleParam(Map<String, String> p, String key, double fallback) {
        String v = raw(p, key);
        if (v == null) {
            return fallback;
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter " + key + " must be a number, got '" + v + "'");
        }
    }
}
