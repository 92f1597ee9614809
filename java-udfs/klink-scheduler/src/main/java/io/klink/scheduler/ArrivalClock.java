package io.klink.scheduler;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * When did the oldest record in a task's queue arrive? Flink keeps no arrival times, but two counters
 * give them at the resolution of the scheduling cycle: records consumed so far ({@code in}) and records
 * queued now ({@code queued}), so arrivals so far are A = in + queued. Queues are FIFO, so the oldest
 * queued record is arrival number in + 1; it arrived in the first observed interval in which A reached
 * in + 1, at a time interpolated linearly within that interval (arrivals spread evenly between two
 * observations). FCFS (paper §6.1.3) needs exactly this.
 */
public final class ArrivalClock {

    private record Sample(long timeMs, long arrivals) {
    }

    private final ArrayDeque<Sample> samples = new ArrayDeque<>();

    /**
     * Records one observation and returns the arrival time (ms) of the oldest queued record, or
     * {@link TaskSnapshot#UNKNOWN_ARRIVAL} when the queue is empty.
     */
    public long observe(long nowMs, long recordsIn, long queuedRecords) {
        long arrivals = recordsIn + Math.max(0, queuedRecords);
        Sample last = samples.peekLast();
        if (last != null && (arrivals < last.arrivals() || nowMs < last.timeMs())) {
            samples.clear(); // counters restarted (a new task attempt): history no longer applies
        }
        samples.addLast(new Sample(nowMs, arrivals));
        long oldest = recordsIn + 1;
        while (samples.size() > 2 && secondArrivals() < oldest) {
            samples.removeFirst(); // keep one sample before the interval holding the oldest record
        }
        return queuedRecords <= 0 ? TaskSnapshot.UNKNOWN_ARRIVAL : arrivalOf(oldest);
    }

    private long secondArrivals() {
        Iterator<Sample> it = samples.iterator();
        it.next();
        return it.next().arrivals();
    }

    private long arrivalOf(long index) {
        Sample before = null;
        for (Sample s : samples) {
            if (s.arrivals() >= index) {
                if (before == null || s.arrivals() == before.arrivals()) {
                    return s.timeMs(); // arrived before the first observation: the earliest time known
                }
                double frac = (double) (index - before.arrivals()) / (s.arrivals() - before.arrivals());
                return before.timeMs() + Math.round(frac * (s.timeMs() - before.timeMs()));
            }
            before = s;
        }
        return samples.peekLast().timeMs();
    }
}
