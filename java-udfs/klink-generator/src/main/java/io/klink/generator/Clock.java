package io.klink.generator;

import java.util.concurrent.locks.LockSupport;

/** Time source of the generator; tests script it instead of sleeping. */
public interface Clock {

    /** Monotonic nanoseconds (arbitrary origin). */
    long nanoTime();

    /** Wall clock, epoch milliseconds. */
    long currentTimeMillis();

    /** Waits about {@code nanos} (may return early or late). */
    void parkNanos(long nanos);

    Clock SYSTEM = new Clock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public long currentTimeMillis() {
            return System.currentTimeMillis();
        }

        @Override
        public void parkNanos(long nanos) {
            LockSupport.parkNanos(nanos);
        }
    };
}
