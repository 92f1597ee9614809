package io.klink.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;

/**
 * How long HotSpot has held this JVM's Java threads at safepoints: reaching them and inside them, for garbage
 * collections and for everything else that stops the world (deoptimisation, G1's remark and cleanup pauses, which
 * JDK 17's collector beans do not count, periodic cleanups). A scheduler cycle that comes late by that much waited
 * for the JVM, not for the CPU. HotSpot keeps the totals in {@code sun.management.HotspotRuntimeMBean}, which
 * {@code java.management} does not export: the agent exports it to itself through its {@link Instrumentation}.
 * It adds a safepoint to the totals only after releasing the threads, so a cycle that starts right after one may
 * read it a cycle late; {@code klinkctl.results.summary.stall_in_interval} gives it back to the interval it was in.
 */
final class Safepoints {

    private static Object runtime;
    private static Method syncMs;
    private static Method atMs;

    private Safepoints() {}

    /** Called once from premain; without it (or where the JVM refuses) {@link #totalMs()} is -1. */
    static void open(Instrumentation instrumentation) {
        try {
            Module management = ModuleLayer.boot().findModule("java.management").orElseThrow();
            instrumentation.redefineModule(management, Set.of(),
                    Map.of("sun.management", Set.of(Safepoints.class.getModule())), Map.of(), Set.of(), Map.of());
            Class<?> mbean = Class.forName("sun.management.HotspotRuntimeMBean");
            runtime = Class.forName("sun.management.ManagementFactoryHelper").getMethod("getHotspotRuntimeMBean")
                    .invoke(null);
            syncMs = mbean.getMethod("getSafepointSyncTime");
            atMs = mbean.getMethod("getTotalSafepointTime");
            totalMs();
        } catch (ReflectiveOperationException | RuntimeException e) {
            runtime = null;
            System.err.println("klink-agent: safepoint times unavailable (" + e + "); scheduler.csv safepoint_ms -1");
        }
    }

    /** Milliseconds spent reaching and at safepoints since the JVM started; -1 if unknown. */
    static long totalMs() {
        if (runtime == null) {
            return -1;
        }
        try {
            return (long) syncMs.invoke(runtime) + (long) atMs.invoke(runtime);
        } catch (ReflectiveOperationException e) {
            return -1;
        }
    }
}
