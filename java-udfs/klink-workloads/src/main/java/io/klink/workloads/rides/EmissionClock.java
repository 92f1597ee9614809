package io.klink.workloads.rides;

/**
 * When an instance of the combiner emits its partials: at multiples of λ on the wall clock, the same instants on
 * every instance (seed adcom-edbt21.txt §3.2: one controller for all instances keeps them in step). A new λ from
 * the controller applies from its {@link Interval#fromMs()}: the next emission is then the first multiple of the
 * new λ after that instant, again the same on every instance.
 */
final class EmissionClock {

    private long intervalMs;
    private long nextEmitAt;
    private long takenPeriod;

    EmissionClock(long intervalMs, long nowMs) {
        this.intervalMs = intervalMs;
        this.nextEmitAt = nextAligned(nowMs, intervalMs);
    }

    /** The first multiple of {@code intervalMs} after {@code nowMs}. */
    static long nextAligned(long nowMs, long intervalMs) {
        return (nowMs / intervalMs + 1) * intervalMs;
    }

    long intervalMs() {
        return intervalMs;
    }

    /** Takes the controller's {@code latest} interval once, when {@code nowMs} reached its switch instant. */
    void take(Interval latest, long nowMs) {
        if (latest == null || latest.period() == takenPeriod || nowMs < latest.fromMs()) {
            return;
        }
        takenPeriod = latest.period();
        if (latest.intervalMs() != intervalMs) {
            intervalMs = latest.intervalMs();
            nextEmitAt = Math.min(nextEmitAt, nextAligned(latest.fromMs(), intervalMs));
        }
    }

    /** The instant the next emission is for (it happens at the first tick from then on). */
    long nextEmitAt() {
        return nextEmitAt;
    }

    boolean due(long nowMs) {
        return nowMs >= nextEmitAt;
    }

    void emitted(long nowMs) {
        nextEmitAt = nextAligned(nowMs, intervalMs);
    }
}
