package io.klink.scheduler;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Event-time progress of window tasks, reported by the window operator from its task thread and read
 * by the scheduler thread. Keyed by thread: a Flink task runs all its operators on one (mailbox)
 * thread, so the scheduler finds a task's progress through the task's thread.
 *
 * <p>{@link #report} costs a ThreadLocal lookup and two volatile writes; callers report only when a
 * value changes. The class lives on the TaskManager's system classpath (shaded into the agent jar);
 * operators must tolerate its absence (NoClassDefFoundError) when the agent is not attached.
 */
public final class WindowProgress {

    /** One task thread's latest report. */
    public static final class Progress {
        private volatile long watermark = TaskSnapshot.NO_WATERMARK;
        private volatile long nextDeadline = TaskSnapshot.NO_DEADLINE;

        public long watermark() {
            return watermark;
        }

        /** Event time of the earliest open window's end, {@link TaskSnapshot#NO_DEADLINE} if none. */
        public long nextDeadline() {
            return nextDeadline;
        }
    }

    private static final Map<Thread, Progress> BY_THREAD = new ConcurrentHashMap<>();
    private static final ThreadLocal<Progress> MINE = ThreadLocal.withInitial(() -> {
        Progress p = new Progress();
        BY_THREAD.put(Thread.currentThread(), p);
        return p;
    });

    private WindowProgress() {
    }

    /** Called on the window task's thread after a watermark or when the next deadline changes. */
    public static void report(long watermark, long nextDeadline) {
        Progress p = MINE.get();
        p.watermark = watermark;
        p.nextDeadline = nextDeadline;
    }

    /** The latest report made on {@code thread}, or null if it never reported. */
    public static Progress of(Thread thread) {
        return BY_THREAD.get(thread);
    }

    /** Drops the report of a thread whose task ended (the thread may be reused by nobody else). */
    public static void forget(Thread thread) {
        BY_THREAD.remove(thread);
    }
}
