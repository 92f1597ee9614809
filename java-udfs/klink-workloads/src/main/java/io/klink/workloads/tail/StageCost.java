package io.klink.workloads.tail;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * How a stage spends its per-record cost. {@link #CPU} (the default) burns CPU time of the calling thread, not wall
 * time: a TaskManager slowed by a CPU quota or a noisy neighbour then takes longer for the same work, as a slower
 * machine would (a wall-clock spin would finish "on time" across a throttled period). {@link #WALL} and
 * {@link #WALL_EXP} wait on the wall clock instead, a fixed or an exponentially distributed time (mean: the cost),
 * without using a CPU: each task is then a server of its own, as if it had a core to itself (the seed's §3.2
 * machines; the M/M/c model of its Eq. 2), which a 2-core machine running every task cannot give with CPU work.
 */
public enum StageCost {
    CPU("cpu"), WALL("wall"), WALL_EXP("wall-exp");

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Work between clock reads: reading the thread's CPU clock is a system call (about 0.3 µs). */
    private static final int CHUNK = 64;

    public final String name;

    StageCost(String name) {
        this.name = name;
    }

    public static StageCost named(String name) {
        for (StageCost cost : values()) {
            if (cost.name.equals(name)) {
                return cost;
            }
        }
        throw new IllegalArgumentException("stage cost model " + name + " is none of cpu, wall, wall-exp");
    }

    /** Spends {@code micros} µs (the mean, for WALL_EXP); returns a value so the JIT cannot drop CPU work. */
    public long spend(long micros) {
        if (micros <= 0) {
            return 0;
        }
        return switch (this) {
            case CPU -> burn(micros);
            case WALL -> waitMicros(micros);
            case WALL_EXP -> waitMicros(Math.round(micros * -Math.log(1 - ThreadLocalRandom.current().nextDouble())));
        };
    }

    private static long burn(long micros) {
        long until = THREADS.getCurrentThreadCpuTime() + micros * 1000;
        long x = micros;
        do {
            for (int i = 0; i < CHUNK; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        } while (THREADS.getCurrentThreadCpuTime() < until);
        return x;
    }

    private static long waitMicros(long micros) {
        long until = System.nanoTime() + micros * 1000;
        for (long left = micros * 1000; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
        return micros;
    }
}
