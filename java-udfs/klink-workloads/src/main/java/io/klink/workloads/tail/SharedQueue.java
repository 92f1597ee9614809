package io.klink.workloads.tail;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.functions.async.RichAsyncFunction;

/**
 * A stage whose tasks in one TaskManager share one input queue (Du and Gupta §3.2, "improved concurrency for
 * worker process"): instead of each task working off its own input, every task of the stage in this JVM hands its
 * records to one queue served by as many worker threads as the stage has tasks here, so a free worker takes the
 * next record whichever task received it (an M/M/c queue instead of c M/M/1 queues, Eq. 2). Flink's async I/O
 * carries it: the task's thread only enqueues and, through its mailbox, emits what the workers finished (in
 * completion order: the exchange is a shuffle, so order does not matter).
 */
public final class SharedQueue extends RichAsyncFunction<TailRecord, TailRecord> {

    private static final Map<String, Pool> POOLS = new HashMap<>();

    private final ServiceTime service;
    private final RecordWork work;
    private final String name;
    private transient Pool pool;
    private transient long serviceMicros;
    private transient Stalls.Schedule stalls;

    /** {@code name}: the stage's name within the run (the key its tasks in a JVM share the queue by). */
    public SharedQueue(ServiceTime service, RecordWork work, String name) {
        this.service = service;
        this.work = work;
        this.name = name;
    }

    @Override
    public void open(OpenContext context) {
        serviceMicros = service.microsIn(this::getRuntimeContext);
        stalls = service.stalls().start(() -> Stage.taskSeed(getRuntimeContext()));
        pool = join(name);
    }

    @Override
    public void asyncInvoke(TailRecord r, ResultFuture<TailRecord> result) {
        pool.executor.execute(() -> {
            stalls.waitIfDue();
            r.startWork(Feedback.nowMicros());
            service.model().spend(serviceMicros);
            r.payload = work.apply(r.payload);
            r.handedOnUs = Feedback.nowMicros();
            result.complete(r.payload != null ? List.of(r) : List.of());
        });
    }

    @Override
    public void close() throws Exception {
        if (pool != null) {
            leave(pool);
            pool = null;
        }
        super.close();
    }

    /** How many worker threads serve the queue of stage {@code name} in this JVM (its tasks here). */
    static synchronized int workers(String name) {
        Pool pool = POOLS.get(name);
        return pool == null ? 0 : pool.tasks;
    }

    private static synchronized Pool join(String name) {
        Pool pool = POOLS.computeIfAbsent(name, Pool::new);
        pool.tasks++;
        pool.executor.setMaximumPoolSize(Math.max(pool.tasks, pool.executor.getMaximumPoolSize()));
        pool.executor.setCorePoolSize(pool.tasks);
        return pool;
    }

    private static synchronized void leave(Pool pool) {
        if (--pool.tasks == 0) {
            POOLS.remove(pool.name);
            pool.executor.shutdownNow();
        }
    }

    /** One stage's queue in this JVM: one FIFO, one worker thread per task of the stage here. */
    private static final class Pool {
        final String name;
        final ThreadPoolExecutor executor;
        int tasks;

        Pool(String name) {
            this.name = name;
            this.executor = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "klink-shared-queue-" + name);
                thread.setDaemon(true);
                return thread;
            });
        }
    }
}
