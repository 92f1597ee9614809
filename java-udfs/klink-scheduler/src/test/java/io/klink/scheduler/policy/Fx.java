package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.TaskInfo;
import io.klink.scheduler.TaskSnapshot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Test fixtures: small synthetic tasks, snapshots and states. */
final class Fx {

    static final long T0 = 1_000_000L;

    private Fx() {
    }

    static TaskInfo source(String id, String q) {
        return new TaskInfo(id, q, q + "/source", 0, 0, true, false, false, List.of());
    }

    static TaskInfo op(String id, String q, int stage) {
        return new TaskInfo(id, q, q + "/op" + stage, 0, stage, false, false, false, List.of());
    }

    static TaskInfo window(String id, String q, int stage) {
        return new TaskInfo(id, q, q + "/window", 0, stage, false, true, false, List.of());
    }

    static TaskInfo join(String id, String q, int stage, String... inputs) {
        return new TaskInfo(id, q, q + "/join", 0, stage, false, true, false, List.of(inputs));
    }

    static TaskInfo sink(String id, String q, int stage) {
        return new TaskInfo(id, q, q + "/sink", 0, stage, false, false, true, List.of());
    }

    static KlinkPolicy klink(long r, Map<String, String> extra) {
        Map<String, String> p = new HashMap<>(Map.of("r", Long.toString(r), "age", "0"));
        p.putAll(extra);
        return (KlinkPolicy) Policies.create("klink", p);
    }

    /** A query: idle source (stage 0) whose watermark is {@code wm}, and a window task (stage 1). */
    static List<TaskInfo> query(String q) {
        return List.of(source(q + "-src", q), window(q + "-win", q, 1));
    }

    static List<TaskInfo> queries(String... qs) {
        List<TaskInfo> all = new ArrayList<>();
        for (String q : qs) {
            all.addAll(query(q));
        }
        return all;
    }

    static Snap snap(String id) {
        return new Snap(id);
    }

    static SchedulerState state(long now, long r, double memory, List<TaskInfo> tasks, Snap... snaps) {
        List<TaskSnapshot> s = new ArrayList<>();
        for (Snap x : snaps) {
            s.add(x.build());
        }
        return SchedulerState.of(now, r, tasks, s, memory);
    }

    /** Snapshot builder; runnable defaults to queued &gt; 0. */
    static final class Snap {
        private final String id;
        private long queued;
        private double costNs;
        private double sel = 1.0;
        private long wm = TaskSnapshot.NO_WATERMARK;
        private long deadline = TaskSnapshot.NO_DEADLINE;
        private long arrival = TaskSnapshot.UNKNOWN_ARRIVAL;
        private Boolean runnable;

        Snap(String id) {
            this.id = id;
        }

        Snap queued(long q) {
            this.queued = q;
            return this;
        }

        Snap cost(double ns) {
            this.costNs = ns;
            return this;
        }

        Snap sel(double s) {
            this.sel = s;
            return this;
        }

        Snap wm(long w) {
            this.wm = w;
            return this;
        }

        Snap deadline(long d) {
            this.deadline = d;
            return this;
        }

        Snap arrival(long a) {
            this.arrival = a;
            return this;
        }

        Snap runnable(boolean r) {
            this.runnable = r;
            return this;
        }

        TaskSnapshot build() {
            return new TaskSnapshot(id, queued, 0, 0, costNs, sel, wm, deadline, arrival,
                    runnable != null ? runnable : queued > 0);
        }
    }
}
