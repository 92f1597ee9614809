package io.klink.workloads.late;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CancellationException;

/**
 * AION's single I/O thread (seed aion-late-events-esteves.txt §4, "I/O Scheduling and Priorities"): every
 * transfer between m-buckets and p-buckets runs here, one at a time, highest priority first — pre-staging, then
 * late (and overflow) writes, then destaging — so that the transfers do not contend for the disk.
 *
 * <p>Requests of one window keep their submission order whatever their priorities: a request raises the pending
 * requests of its window to its own priority (a staging read must see the late writes submitted before it).
 */
public final class IoScheduler implements AutoCloseable {

    /** §4: "pre-staging has maximum priority, followed by writing late events, and then destaging". */
    public enum Priority { PRESTAGE, LATE_WRITE, DESTAGE }

    private static final class Request {
        final long window;
        final long seq;
        Priority priority;
        final Callable<Object> work;
        final CompletableFuture<Object> done = new CompletableFuture<>();

        Request(long window, long seq, Priority priority, Callable<Object> work) {
            this.window = window;
            this.seq = seq;
            this.priority = priority;
            this.work = work;
        }
    }

    private final PriorityQueue<Request> queue = new PriorityQueue<>(
            Comparator.<Request, Priority>comparing(r -> r.priority).thenComparingLong(r -> r.seq));
    private final long[] executed = new long[Priority.values().length];
    private final Thread thread;
    private long seq;
    private boolean closed;

    /** {@code start}: false leaves the thread unstarted until {@link #start()} (tests queue requests first). */
    public IoScheduler(String name, boolean start) {
        thread = new Thread(this::loop, name);
        thread.setDaemon(true);
        if (start) {
            thread.start();
        }
    }

    public void start() {
        thread.start();
    }

    /** Queues {@code work} on {@code window}'s p-bucket at {@code priority}; the future completes when it ran. */
    @SuppressWarnings("unchecked")
    public synchronized <T> CompletableFuture<T> submit(long window, Priority priority, Callable<T> work) {
        if (closed) {
            throw new IllegalStateException("the I/O thread is closed");
        }
        List<Request> raised = new ArrayList<>();
        for (Request pending : queue) {
            if (pending.window == window && pending.priority.compareTo(priority) > 0) {
                raised.add(pending);
            }
        }
        for (Request r : raised) {
            queue.remove(r);
            r.priority = priority;
            queue.add(r);
        }
        Request request = new Request(window, seq++, priority, (Callable<Object>) work);
        queue.add(request);
        notifyAll();
        return (CompletableFuture<T>) request.done;
    }

    /** Requests run so far at each priority (as submitted or raised). */
    public synchronized long executed(Priority priority) {
        return executed[priority.ordinal()];
    }

    public synchronized int pending() {
        return queue.size();
    }

    private void loop() {
        while (true) {
            Request next;
            synchronized (this) {
                while (queue.isEmpty() && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                next = queue.poll();
                executed[next.priority.ordinal()]++;
            }
            try {
                next.done.complete(next.work.call());
            } catch (Throwable t) {
                next.done.completeExceptionally(t);
            }
        }
    }

    /** Stops the thread; pending requests are cancelled (their p-buckets are deleted with the directory). */
    @Override
    public void close() throws InterruptedException {
        synchronized (this) {
            closed = true;
            queue.forEach(r -> r.done.completeExceptionally(new CancellationException("I/O thread closed")));
            queue.clear();
            notifyAll();
        }
        if (thread.isAlive()) {
            thread.join(10_000);
        }
    }
}
