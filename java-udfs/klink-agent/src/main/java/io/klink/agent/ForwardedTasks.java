package io.klink.agent;

import io.klink.scheduler.TaskInfo;
import io.klink.scheduler.TaskSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Distributed Klink's forwarding between TaskManagers (Farhat et al., SIGMOD 2021, §4): every cycle each
 * TaskManager's scheduler sends what it collected about its own tasks, and takes the other TaskManagers' latest
 * collections, through klinkctl's control channel ({@link RunOutput#exchange}). A task of another TaskManager that
 * belongs to one of this TaskManager's queries joins the cycle's state as a remote task
 * ({@link io.klink.scheduler.SchedulerState#remoteTaskIds}): its watermark progress carries the network delays
 * downstream, its queue and cost the downstream work upstream. As in the simulator (io.klink.sim.Forwarding) we
 * send each task's whole snapshot, a superset of §4's two messages; unlike §4, every TaskManager receives from
 * every other (through klinkctl), not from one.
 *
 * <p>One line per task, tab-separated: the {@link TaskInfo} then the {@link TaskSnapshot} fields, in record order.
 */
public final class ForwardedTasks {

    /** The run control's parameter that turns forwarding on. */
    public static final String PARAMETER = "forward";

    /** A task of another TaskManager, as it was last collected there. */
    public record Remote(TaskInfo info, TaskSnapshot snapshot) {}

    private ForwardedTasks() {}

    public static String encode(List<TaskInfo> infos, List<TaskSnapshot> snapshots) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < infos.size(); i++) {
            TaskInfo t = infos.get(i);
            TaskSnapshot s = snapshots.get(i);
            out.append(String.join("\t", t.taskId(), t.queryId(), clean(t.vertexName()),
                    Integer.toString(t.subtaskIndex()), Integer.toString(t.stage()), Boolean.toString(t.isSource()),
                    Boolean.toString(t.isWindow()), Boolean.toString(t.isSink()), String.join(";", t.upstreamQueryIds()),
                    Long.toString(s.queuedRecords()), Long.toString(s.recordsIn()), Long.toString(s.recordsOut()),
                    Double.toString(s.meanCostNanosPerRecord()), Double.toString(s.selectivity()),
                    Long.toString(s.currentInputWatermark()), Long.toString(s.nextWindowDeadline()),
                    Long.toString(s.oldestQueuedArrivalMs()), Boolean.toString(s.runnable()))).append('\n');
        }
        return out.toString();
    }

    /**
     * The tasks in {@code text} that belong to one of {@code queries} and are not among {@code localIds}, the last
     * line of a task winning; a malformed line is skipped (a garbled forward must not stop the cycle).
     */
    public static List<Remote> decode(String text, Set<String> queries, Set<String> localIds) {
        Map<String, Remote> byId = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            try {
                Remote r = decodeLine(line);
                if (r != null && queries.contains(r.info().queryId()) && !localIds.contains(r.info().taskId())) {
                    byId.put(r.info().taskId(), r);
                }
            } catch (RuntimeException malformed) {
                // skipped: see above
            }
        }
        return new ArrayList<>(byId.values());
    }

    private static Remote decodeLine(String line) {
        if (line.isBlank()) {
            return null;
        }
        String[] f = line.split("\t", -1);
        if (f.length != 18) {
            throw new IllegalArgumentException("expected 18 fields, got " + f.length);
        }
        List<String> upstream = f[8].isEmpty() ? List.of() : Arrays.asList(f[8].split(";"));
        TaskInfo info = new TaskInfo(f[0], f[1], f[2], Integer.parseInt(f[3]), Integer.parseInt(f[4]),
                Boolean.parseBoolean(f[5]), Boolean.parseBoolean(f[6]), Boolean.parseBoolean(f[7]), upstream);
        TaskSnapshot snapshot = new TaskSnapshot(f[0], Long.parseLong(f[9]), Long.parseLong(f[10]),
                Long.parseLong(f[11]), Double.parseDouble(f[12]), Double.parseDouble(f[13]), Long.parseLong(f[14]),
                Long.parseLong(f[15]), Long.parseLong(f[16]), Boolean.parseBoolean(f[17]));
        return new Remote(info, snapshot);
    }

    private static String clean(String field) {
        return field.replace('\t', ' ').replace('\n', ' ');
    }
}
