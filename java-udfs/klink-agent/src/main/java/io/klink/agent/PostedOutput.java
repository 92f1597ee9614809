package io.klink.agent;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A run's rows on their way to klinkctl: buffered per file, posted at every {@link #flush()} (once a second), so
 * an interrupted run keeps every row older than a second. After a failed post the rows of this run are dropped
 * and said so once: the harness is gone or no longer runs this run.
 *
 * <p>The scheduler thread appends while the harness thread posts: {@link #append} only waits for the buffers'
 * lock, never for klinkctl; posts go out one at a time, in order, and the run's end ({@link #close()}) after all
 * of them.
 */
final class PostedOutput implements RunOutput {

    private record Pending(String header, List<String> rows) {}

    private final HarnessChannel channel;
    private final String run;
    private final Map<String, Pending> pending = new LinkedHashMap<>();
    /** Held while posting: one post at a time, in order. */
    private final Object sending = new Object();
    private volatile boolean broken;
    /** A failed exchange is said once; the next cycle tries again. */
    private boolean exchangeFailed;

    PostedOutput(HarnessChannel channel, String run) {
        this.channel = channel;
        this.run = run;
    }

    @Override
    public void append(String file, String header, String row) {
        if (!broken) {
            synchronized (pending) {
                pending.computeIfAbsent(file, f -> new Pending(header, new ArrayList<>())).rows().add(row);
            }
        }
    }

    @Override
    public void flush() {
        synchronized (sending) {
            for (Map.Entry<String, String> body : takePending().entrySet()) {
                if (!broken) {
                    send("/rows", body.getKey(), body.getValue());
                }
            }
        }
    }

    /** Each file's rows appended since the last call, with its header, as one body; the buffers left empty. */
    private Map<String, String> takePending() {
        Map<String, String> bodies = new LinkedHashMap<>();
        synchronized (pending) {
            for (Map.Entry<String, Pending> e : pending.entrySet()) {
                Pending p = e.getValue();
                if (!p.rows().isEmpty()) {
                    bodies.put(e.getKey(), p.header() + "\n" + String.join("\n", p.rows()) + "\n");
                }
                p.rows().clear();
            }
        }
        return bodies;
    }

    @Override
    public String exchange(String snapshots) {
        try {
            return channel.post("/snapshots", run, null, snapshots);
        } catch (IOException e) {
            if (!exchangeFailed) {
                exchangeFailed = true;
                System.err.println("klink-scheduler: no forwarded tasks for run " + run + " (" + e.getMessage() + ")");
            }
            return "";
        }
    }

    @Override
    public void close() {
        synchronized (sending) {
            flush();
            if (!broken) {
                send("/done", null, "");
            }
        }
    }

    private void send(String path, String file, String body) {
        try {
            channel.post(path, run, file, body);
        } catch (IOException e) {
            broken = true;
            System.err.println("klink-scheduler: no more rows for run " + run + " (" + e.getMessage() + ")");
        }
    }
}
