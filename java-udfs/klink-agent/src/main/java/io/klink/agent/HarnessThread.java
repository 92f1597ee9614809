package io.klink.agent;

/**
 * The TaskManager's link to klinkctl (daemon, {@code klink-harness}): every second it fetches the run's control
 * ({@link HarnessChannel}) and applies it to the {@link Scheduler}, takes the tasks' counters for the run's
 * tasks.csv ({@link TaskTotals}) and posts the rows of the last second. Nobody listening or policy
 * {@code default} means plain Flink; a malformed control is reported once on stderr and treated as
 * {@code default}.
 *
 * <p>Not on the scheduler's own thread: an exchange with klinkctl waits for a process on another core, and
 * measured on a quarter core with 16 queries it took 5 ms per cycle on average and up to 420 ms, every millisecond
 * of it a cycle that started late (docs/scheduler.md, "The scheduler thread on time").
 */
public final class HarnessThread extends Thread {

    static final long POLL_MS = 1000;

    private final HarnessChannel channel;
    private final Scheduler scheduler;
    private String seen = "";
    /** The last fetch's failure, said once. */
    private String problem = "";

    public HarnessThread(HarnessChannel channel, Scheduler scheduler) {
        super("klink-harness");
        setDaemon(true);
        this.channel = channel;
        this.scheduler = scheduler;
    }

    @Override
    public void run() {
        while (!isInterrupted()) {
            try {
                long next = System.currentTimeMillis() + POLL_MS;
                poll();
                scheduler.observeTasks();
                scheduler.flush();
                Thread.sleep(Math.max(1, next - System.currentTimeMillis()));
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                System.err.println("klink-harness: " + t + "; back to default");
                scheduler.deactivate();
            }
        }
    }

    /** Applies the harness's control if it changed (a new run, its end, or the harness gone). */
    void poll() {
        String text;
        try {
            text = channel.fetch();
            problem = "";
        } catch (java.io.IOException e) {
            text = "";
            if (!String.valueOf(e.getMessage()).equals(problem)) {
                problem = String.valueOf(e.getMessage());
                System.err.println("klink-scheduler: cannot fetch the run control (" + problem + "); policy default");
            }
        }
        if (text.equals(seen)) {
            return;
        }
        seen = text;
        if (text.isEmpty()) {
            if (scheduler.active()) {
                System.out.println("klink-scheduler: klinkctl stopped listening, policy default");
            }
            scheduler.deactivate();
            return;
        }
        try {
            RunControl next = RunControl.parse(text);
            scheduler.apply(next);
            System.out.println("klink-scheduler: run " + next.run() + ", policy " + next.policy()
                    + (scheduler.active() ? " active (r=" + scheduler.cycleMs() + " ms, C=" + scheduler.maxRunning()
                    + ", " + TaskGate.tasks().size() + " tasks)" : ""));
        } catch (RuntimeException e) {
            scheduler.deactivate();
            System.err.println("klink-scheduler: ignoring the run control (" + e.getMessage() + "); policy default");
        }
    }
}
