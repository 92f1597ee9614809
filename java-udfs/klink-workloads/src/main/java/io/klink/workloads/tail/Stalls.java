package io.klink.workloads.tail;

import java.io.Serializable;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * A stage task's stalls ({@code --stall-every}, {@code --stall-length}): at random moments, on average every
 * {@code everyMs} (exponential gaps), the task stops for {@code lengthMs}, as in a garbage-collection pause or a burst
 * of an interfering process. A per-path straggler: the tail the seed's adaptive timeout replays around (§3.1: the copy
 * goes down another path). A stall that falls due while the task is idle starts with its next record.
 */
public record Stalls(long everyMs, long lengthMs) implements Serializable {

    public static final Stalls NONE = new Stalls(0, 0);

    public Stalls {
        if (everyMs < 0 || lengthMs < 0) {
            throw new IllegalArgumentException("stalls need everyMs >= 0 and lengthMs >= 0, got " + everyMs + " and "
                    + lengthMs);
        }
    }

    /** One task's schedule of stalls ({@code seed} is read only when there are stalls). */
    public Schedule start(LongSupplier seed) {
        return new Schedule(this, stalls() ? seed.getAsLong() : 0);
    }

    boolean stalls() {
        return everyMs > 0 && lengthMs > 0;
    }

    /** Thread-safe: a shared queue's workers take the stalls of the tasks they serve. */
    public static final class Schedule {
        private final Stalls stalls;
        private final SplittableRandom random;
        private long nextMs;

        private Schedule(Stalls stalls, long seed) {
            this.stalls = stalls;
            this.random = new SplittableRandom(seed);
            this.nextMs = System.currentTimeMillis() + gapMs();
        }

        /** Waits out a stall when one is due; returns how long it waited, ms. */
        public long waitIfDue() {
            if (!stalls.stalls()) {
                return 0;
            }
            synchronized (this) {
                long now = System.currentTimeMillis();
                if (now < nextMs) {
                    return 0;
                }
                nextMs = now + stalls.lengthMs() + gapMs();
            }
            StageCost.WALL.spend(stalls.lengthMs() * 1000);
            return stalls.lengthMs();
        }

        private long gapMs() {
            return Math.round(stalls.everyMs() * -Math.log(1 - random.nextDouble()));
        }
    }
}
