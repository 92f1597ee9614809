package io.klink.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The TaskManager's scheduler thread (daemon). Polls {@code <statusDir>/control.json} every second;
 * while a pausing policy is active, runs a cycle every r ms. A missing file or policy {@code default}
 * means plain Flink. A malformed file is reported once on stderr and treated as {@code default}. With
 * every poll it also takes the tasks' counters for the run's tasks.csv ({@link TaskTotals}).
 *
 * <p>A cycle that waits for the CPU behind the tasks it schedules comes late, and a late cycle leaves a finished
 * pipeline's slot idle or an urgent one paused. Java priorities cannot express that (HotSpot maps none below
 * nice -1, and the local stack maps every one but 2 to nice 0), so {@code klinkctl} finds this thread by its
 * name in the TaskManager it started and sets it to nice -20 ({@code klinkctl.stack.scheduler_thread}).
 */
public final class SchedulerThread extends Thread {

    static final long POLL_MS = 1000;

    private final Path controlFile;
    private final Scheduler scheduler;
    private String seenVersion = "";

    public SchedulerThread(Path statusDir, Scheduler scheduler) {
        super("klink-scheduler");
        setDaemon(true);
        this.controlFile = statusDir.resolve(ControlFile.FILE_NAME);
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
                    poll();
                    scheduler.observeTasks();
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

    /** Reloads the control file if it appeared, changed or disappeared. */
    void poll() {
        String version;
        try {
            BasicFileAttributes a = Files.readAttributes(controlFile, BasicFileAttributes.class);
            version = a.lastModifiedTime().toMillis() + ":" + a.size() + ":" + a.fileKey();
        } catch (NoSuchFileException e) {
            version = "";
        } catch (IOException e) {
            version = "";
        }
        if (version.equals(seenVersion)) {
            return;
        }
        seenVersion = version;
        if (version.isEmpty()) {
            if (scheduler.active()) {
                System.out.println("klink-scheduler: control file removed, policy default");
            }
            scheduler.deactivate();
            return;
        }
        try {
            ControlFile next = ControlFile.parse(Files.readString(controlFile, StandardCharsets.UTF_8));
            scheduler.apply(next);
            System.out.println("klink-scheduler: policy " + next.policy()
                    + (scheduler.active() ? " active (r=" + scheduler.cycleMs() + " ms, C=" + scheduler.maxRunning()
                    + ", " + TaskGate.tasks().size() + " tasks) writing " + next.runDir().resolve("scheduler.csv") : ""));
        } catch (IOException | RuntimeException e) {
            scheduler.deactivate();
            System.err.println("klink-scheduler: ignoring " + controlFile + " (" + e.getMessage() + "); policy default");
        }
    }
}
