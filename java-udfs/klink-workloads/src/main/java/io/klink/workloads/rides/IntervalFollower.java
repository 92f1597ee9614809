package io.klink.workloads.rides;

import java.io.IOException;

/**
 * An instance's listener to its query's controller: a daemon thread that waits at klinkctl for every new
 * {@link Interval} and keeps the latest for the operator's timer to take ({@link EmissionClock}). klinkctl opens
 * its channel once the job runs and closes it at the run's end: meanwhile the follower retries every
 * {@value #RETRY_MS} ms and the instance keeps its interval.
 */
final class IntervalFollower implements Runnable {

    static final long RETRY_MS = 250;

    private final CombinerChannel channel;
    private volatile Interval latest;

    IntervalFollower(CombinerChannel channel) {
        this.channel = channel;
    }

    /** The controller's latest interval, or null before its first. */
    Interval latest() {
        return latest;
    }

    /** Until interrupted (the operator's close). */
    @Override
    public void run() {
        long seen = 0;
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Interval next = channel.awaitChange(seen);
                if (next != null) {
                    latest = next;
                    seen = next.period();
                }
            } catch (IOException e) {
                if (!pause()) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static boolean pause() {
        try {
            Thread.sleep(RETRY_MS);
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }
}
