package io.klink.scheduler;

import java.util.Objects;

/**
 * Runtime data of one task for one scheduling cycle (paper §5, "collect"; the tuple 𝓘 of Alg. 1).
 * Immutable.
 *
 * @param taskId                 the task
 * @param queuedRecords          records waiting in the task's input queue (for a source: unread backlog)
 * @param recordsIn              records consumed so far (cumulative)
 * @param recordsOut             records emitted so far (cumulative)
 * @param meanCostNanosPerRecord mean CPU time to process one input record, ns (0 if unknown)
 * @param selectivity            output records per input record; NaN or negative if unknown (policies
 *                               then assume 1)
 * @param currentInputWatermark  event-time watermark the task has received, ms; for a source task the
 *                               watermark it has generated. {@link #NO_WATERMARK} if none yet.
 * @param nextWindowDeadline     event time (ms) of the earliest window the task will fire next,
 *                               {@link #NO_DEADLINE} if none (or if the task is not a window task)
 * @param oldestQueuedArrivalMs  wall-clock arrival time (ms) of the oldest queued record,
 *                               {@link #UNKNOWN_ARRIVAL} if unknown or the queue is empty
 * @param runnable               the task has input to process (pausing it costs nothing otherwise)
 */
public record TaskSnapshot(
        String taskId,
        long queuedRecords,
        long recordsIn,
        long recordsOut,
        double meanCostNanosPerRecord,
        double selectivity,
        long currentInputWatermark,
        long nextWindowDeadline,
        long oldestQueuedArrivalMs,
        boolean runnable) {

    public static final long NO_WATERMARK = Long.MIN_VALUE;
    public static final long NO_DEADLINE = Long.MAX_VALUE;
    public static final long UNKNOWN_ARRIVAL = -1L;

    public TaskSnapshot {
        Objects.requireNonNull(taskId, "taskId");
        if (queuedRecords < 0) {
            throw new IllegalArgumentException("queuedRecords must be >= 0, got " + queuedRecords);
        }
        if (!(meanCostNanosPerRecord >= 0) || Double.isInfinite(meanCostNanosPerRecord)) {
            meanCostNanosPerRecord = 0.0;
        }
    }

    /** The snapshot assumed for a task nothing was collected from: idle, no data. */
    public static TaskSnapshot idle(String taskId) {
        return new TaskSnapshot(taskId, 0, 0, 0, 0.0, Double.NaN, NO_WATERMARK, NO_DEADLINE,
                UNKNOWN_ARRIVAL, false);
    }

    /** Selectivity to use in formulas: the reported one, or 1 if unknown. */
    public double selectivityOrOne() {
        return Double.isFinite(selectivity) && selectivity >= 0 ? selectivity : 1.0;
    }

    public boolean hasWatermark() {
        return currentInputWatermark != NO_WATERMARK;
    }

    public boolean hasDeadline() {
        return nextWindowDeadline != NO_DEADLINE;
    }
}
