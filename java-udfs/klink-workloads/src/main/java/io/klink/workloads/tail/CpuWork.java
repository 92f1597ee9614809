package io.klink.workloads.tail;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * A stage's per-record cost as CPU time of the calling thread, not wall time: a TaskManager slowed by a CPU quota
 * or a noisy neighbour then takes longer for the same work, as a slower machine would (a wall-clock spin would
 * finish "on time" across a throttled period).
 */
public final class CpuWork {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Work between clock reads: reading the thread's CPU clock is a system call (about 0.3 µs). */
    private static final int CHUNK = 64;

    private CpuWork() {}

    /** Burns {@code micros} µs of this thread's CPU time; returns a value so the JIT cannot drop the work. */
    public static long burn(long micros) {
        if (micros <= 0) {
            return 0;
        }
        long until = THREADS.getCurrentThreadCpuTime() + micros * 1000;
        long x = micros;
        do {
            for (int i = 0; i < CHUNK; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        } while (THREADS.getCurrentThreadCpuTime() < until);
        return x;
    }
}
