package io.klink.metrics;

/**
 * Reports a window task's event-time progress to the klink scheduler ({@code io.klink.scheduler.WindowProgress},
 * on the TaskManager's system classpath when the klink agent is attached). Without the agent the class is
 * missing: the first call notices and every later call is a no-op, so the pipeline runs unchanged.
 */
final class SchedulerProgress {

    private static volatile boolean available = true;

    private SchedulerProgress() {
    }

    static void report(long watermark, long nextDeadline) {
        if (!available) {
            return;
        }
        try {
            io.klink.scheduler.WindowProgress.report(watermark, nextDeadline);
        } catch (LinkageError e) { // NoClassDefFoundError without the agent
            available = false;
        }
    }
}
