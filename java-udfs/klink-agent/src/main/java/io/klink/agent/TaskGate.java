package io.klink.agent;

import io.klink.scheduler.TaskInfo;
import io.klink.scheduler.WindowProgress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.streaming.runtime.tasks.StreamTask;
import org.apache.flink.streaming.runtime.tasks.mailbox.MailboxDefaultAction;

/**
 * Where Flink's task threads meet the scheduler. The agent's advice calls {@link #taskStarted} when
 * {@code StreamTask.invoke()} begins, {@link #beforeProcessInput} on every {@code processInput} (the
 * mailbox default action) and {@link #taskExited} when {@code invoke()} ends, normally or not.
 *
 * <p>Cost on the hot path: one volatile read while no policy is active; a ThreadLocal lookup and one
 * more volatile read while one is (the task thread is its mailbox thread, so the ThreadLocal is the
 * task's handle).
 */
public final class TaskGate {

    private static volatile boolean active;
    private static final ThreadLocal<TaskHandle> CURRENT = new ThreadLocal<>();
    private static final Map<String, TaskHandle> TASKS = new ConcurrentHashMap<>();
    private static volatile boolean reportedRegistrationError;
    /** Suspensions of all tasks since the TaskManager started (for logs and tests). */
    static final java.util.concurrent.atomic.LongAdder SUSPENSIONS = new java.util.concurrent.atomic.LongAdder();

    public static long suspensions() {
        return SUSPENSIONS.sum();
    }

    private TaskGate() {
    }

    /** Advice on processInput: true = skip the method body (the default action is now suspended). */
    public static boolean beforeProcessInput(Object task, Object controller) {
        if (!active) {
            return false;
        }
        TaskHandle h = CURRENT.get();
        return h != null && h.onProcessInput((MailboxDefaultAction.Controller) controller);
    }

    /** Advice on invoke() entry, on the task thread. Never throws. */
    public static void taskStarted(Object task) {
        try {
            if (task instanceof StreamTask<?, ?> streamTask) {
                register(FlinkTaskProbe.describe(streamTask), new FlinkTaskProbe(streamTask));
            }
        } catch (Throwable t) {
            if (!reportedRegistrationError) {
                reportedRegistrationError = true;
                System.err.println("klink-scheduler: could not register task " + safeName(task) + ": " + t);
            }
        }
    }

    /** Advice on invoke() exit (also on exceptions), on the task thread. Never throws. */
    public static void taskExited(Object task) {
        try {
            TaskHandle h = CURRENT.get();
            if (h != null) {
                CURRENT.remove();
                TASKS.remove(h.info.taskId(), h);
                h.resume();
            }
            WindowProgress.forget(Thread.currentThread());
        } catch (Throwable t) {
            System.err.println("klink-scheduler: deregistering " + safeName(task) + " failed: " + t);
        }
    }

    /** Registers the current thread's task (public for tests). */
    public static TaskHandle register(TaskInfo info, TaskProbe probe) {
        TaskHandle h = new TaskHandle(info, Thread.currentThread(), probe);
        CURRENT.set(h);
        TASKS.put(info.taskId(), h);
        return h;
    }

    /** The current thread's handle, or null. */
    public static TaskHandle current() {
        return CURRENT.get();
    }

    public static List<TaskHandle> tasks() {
        return new ArrayList<>(TASKS.values());
    }

    public static boolean isActive() {
        return active;
    }

    /** On: tasks check their pause flag. Off: every task runs; all suspensions are resumed. */
    public static void setActive(boolean on) {
        active = on;
        if (!on) {
            resumeAll();
        }
    }

    /** Resumes every registered task; returns how many were actually suspended. */
    public static int resumeAll() {
        int resumed = 0;
        for (TaskHandle h : TASKS.values()) {
            if (h.resume()) {
                resumed++;
            }
        }
        return resumed;
    }

    /** Tests: forget every task and deactivate. */
    static void reset() {
        active = false;
        TASKS.clear();
        CURRENT.remove();
    }

    private static String safeName(Object task) {
        try {
            return task instanceof StreamTask<?, ?> t ? t.getName() : String.valueOf(task);
        } catch (Throwable t) {
            return task == null ? "null" : task.getClass().getName();
        }
    }
}
