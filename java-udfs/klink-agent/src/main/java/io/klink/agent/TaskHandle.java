package io.klink.agent;

import io.klink.scheduler.ArrivalClock;
import io.klink.scheduler.SourceBacklog;
import io.klink.scheduler.TaskInfo;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.streaming.runtime.tasks.mailbox.MailboxDefaultAction;

/**
 * One registered task: its identity, its thread (the mailbox thread) and the pause/resume handshake.
 *
 * <p>Pause: the scheduler sets {@link #pauseRequested}; at its next {@code processInput} the task thread
 * suspends the mailbox default action and skips the body. Mails (timers, checkpoints) keep running.
 * Resume: the scheduler clears the flag and resumes the suspension it takes out of {@link #suspension}.
 * Race: if the flag is cleared between the task's check and its publishing the suspension, the task
 * sees the cleared flag after publishing and resumes itself; whoever takes the suspension out of the
 * reference first resumes it, exactly once.
 */
public final class TaskHandle {

    final TaskInfo info;
    final String label;
    final Thread thread;
    final TaskProbe probe;
    volatile boolean pauseRequested;
    /** Scheduler thread only: the task thread's Java priority was lowered by {@link #demote()}. */
    private boolean demoted;
    final AtomicReference<MailboxDefaultAction.Suspension> suspension = new AtomicReference<>();

    /** Times the task suspended itself (written by the task thread only; read for logs). */
    volatile long suspensions;

    // Scheduler-thread-only bookkeeping between cycles.
    long lastIn = -1;
    long lastOut = -1;
    long lastCpuNs = -1;
    long lastBytesIn = -1;
    /** Records consumed and CPU used by the task since the previous cycle: what the previous choice got done. */
    long cycleRecordsIn;
    long cycleCpuNs;
    /** Mean size of one input record in the input gates' buffers; NaN until records and bytes were seen. */
    double bytesPerRecord = Double.NaN;
    double meanCostNs;
    double selectivity = Double.NaN;
    /** Watermarks leave a source every 200 ms (the bench's watermark interval): that much lag is noise. */
    static final long SOURCE_LAG_TOLERANCE_MS = 250;
    final SourceBacklog backlog = new SourceBacklog(SOURCE_LAG_TOLERANCE_MS);
    final ArrivalClock arrivals = new ArrivalClock();

    public TaskHandle(TaskInfo info, Thread thread, TaskProbe probe) {
        this.info = info;
        this.thread = thread;
        this.probe = probe;
        this.label = TaskNames.label(info.queryId(), info.isSource(), info.isWindow(), info.subtaskIndex());
    }

    public TaskInfo info() {
        return info;
    }

    /** Task thread, inside processInput: true = the body must be skipped (the task is now suspended). */
    public boolean onProcessInput(MailboxDefaultAction.Controller controller) {
        if (!pauseRequested) {
            return false;
        }
        MailboxDefaultAction.Suspension s = controller.suspendDefaultAction();
        suspensions++;
        TaskGate.SUSPENSIONS.increment();
        MailboxDefaultAction.Suspension previous = suspension.getAndSet(s);
        if (previous != null && previous != s) {
            previous.resume(); // stale suspension nobody resumed (cannot normally happen)
        }
        if (!pauseRequested) {
            MailboxDefaultAction.Suspension mine = suspension.getAndSet(null);
            if (mine != null) {
                mine.resume();
            }
        }
        return true;
    }

    /** Scheduler thread: the task stops reading input at its next processInput. */
    public void requestPause() {
        pauseRequested = true;
    }

    /** Scheduler thread: let the task run; returns true if a suspension was resumed. */
    public boolean resume() {
        pauseRequested = false;
        MailboxDefaultAction.Suspension s = suspension.getAndSet(null);
        if (s != null) {
            s.resume();
            return true;
        }
        return false;
    }

    /** Scheduler thread: the task keeps running, at the lowest OS priority ({@link Enforcement#PRIORITY}). */
    public void demote() {
        if (!demoted) {
            thread.setPriority(Enforcement.DEMOTED_PRIORITY);
            demoted = true;
        }
    }

    /** Scheduler thread: back to normal priority; returns true if the task was demoted. */
    public boolean promote() {
        if (!demoted) {
            return false;
        }
        thread.setPriority(Thread.NORM_PRIORITY);
        demoted = false;
        return true;
    }

    public boolean isDemoted() {
        return demoted;
    }

    public boolean isPauseRequested() {
        return pauseRequested;
    }

    public boolean isSuspended() {
        return suspension.get() != null;
    }

    public long suspensions() {
        return suspensions;
    }

    public String label() {
        return label;
    }
}
