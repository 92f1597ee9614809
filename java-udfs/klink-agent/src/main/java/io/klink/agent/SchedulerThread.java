package io.klink.agent;

/**
 * The TaskManager's scheduler thread (daemon): while a pausing policy is active, runs a {@link Scheduler} cycle
 * every r ms, and nothing else; {@link HarnessThread} talks to klinkctl.
 *
 * <p>A cycle that waits for the CPU behind the tasks it schedules comes late, and a late cycle leaves a finished
 * pipeline's slot idle or an urgent one paused. Java priorities cannot express that (HotSpot maps none below
 * nice -1, and the local stack maps every one but 2 to nice 0), so {@code klinkctl} finds this thread by its
 * name in the TaskManager it started and sets it to nice -20 ({@code klinkctl.stack.scheduler_thread}).
 */
public final class SchedulerThread extends Thread {

    /** How often an idle thread looks whether a run has activated a policy. */
    static final long IDLE_MS = 20;

    private final Scheduler scheduler;

    public SchedulerThread(Scheduler scheduler) {
        super("klink-scheduler");
        setDaemon(true);
        this.scheduler = scheduler;
    }

    @Override
    public void run() {
        long nextCycle = 0;
        while (!isInterrupted()) {
            try {
                if (!scheduler.active()) {
                    nextCycle = 0;
                    Thread.sleep(IDLE_MS);
                    continue;
                }
                long now = System.currentTimeMillis();
                if (now >= nextCycle) {
                    scheduler.cycle(now);
                    // Fixed rate; after a stall (or at the start) the next cycle is one period away.
                    nextCycle = nextCycle + scheduler.cycleMs() > now ? nextCycle + scheduler.cycleMs()
                            : now + scheduler.cycleMs();
                }
                Thread.sleep(Math.max(1, nextCycle - System.currentTimeMillis()));
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                System.err.println("klink-scheduler: cycle failed, back to default: " + t);
                scheduler.deactivate();
            }
        }
    }
}
