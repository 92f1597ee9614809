package io.klink.agent;

/**
 * The TaskManager's scheduler thread (daemon). Fetches the run's control from klinkctl every second
 * ({@link HarnessChannel}); while a pausing policy is active, runs a cycle every r ms. Nobody listening or policy
 * {@code default} means plain Flink. A malformed control is reported once on stderr and treated as
 * {@code default}. With every poll it also takes the tasks' counters for the run's tasks.csv ({@link TaskTotals})
 * and hands the rows of the last second to the harness.
 *
 * <p>A cycle that waits for the CPU behind the tasks it schedules comes late, and a late cycle leaves a finished
 * pipeline's slot idle or an urgent one paused. Java priorities cannot express that (HotSpot maps none below
 * nice -1, and the local stack maps every one but 2 to nice 0), so {@code klinkctl} finds this thread by its
 * name in the TaskManager it started and sets it to nice -20 ({@code klinkctl.stack.scheduler_thread}).
 */
public final class SchedulerThread extends Thread {

    static final long POLL_MS = 1000;

    private final HarnessChannel channel;
    private final Scheduler scheduler;
    private String seen = "";
    /** The last fetch's failure, said once. */
    private String problem = "";

    public SchedulerThread(HarnessChannel channel, Scheduler scheduler) {
        super("klink-scheduler");
        setDaemon(true);
        this.channel = channel;
        this.scheduler = scheduler;
    }

    @Override
    public void run() {
        long nextPoll = 0;
        long nextCycle = 0;
        while (!isInterrupted()) {
            try {
                long now = System.currentTimeMillis();
                if (now >= nextPoll) {
                    long t0 = System.nanoTime();
                    poll();
                    scheduler.observeTasks();
                    scheduler.flush();
                    scheduler.addHarnessTime(System.nanoTime() - t0);
                    nextPoll = now + POLL_MS;
                }
                if (scheduler.active()) {
                    now = System.currentTimeMillis();
                    if (now >= nextCycle) {
                        scheduler.cycle(now);
                        // Fixed rate; after a stall (or at the start) the next cycle is one period away.
                        nextCycle = nextCycle + scheduler.cycleMs() > now ? nextCycle + scheduler.cycleMs()
                                : now + scheduler.cycleMs();
                    }
                    Thread.sleep(Math.max(1, Math.min(nextCycle, nextPoll) - System.currentTimeMillis()));
                } else {
                    Thread.sleep(Math.max(1, nextPoll - System.currentTimeMillis()));
                }
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                System.err.println("klink-scheduler: cycle failed, back to default: " + t);
                scheduler.deactivate();
                try {
                    Thread.sleep(POLL_MS);
                } catch (InterruptedException e) {
                    return;
                }
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
