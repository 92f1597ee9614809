package io.klink.sim;

import io.klink.scheduler.TaskInfo;
import io.klink.scheduler.TaskSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Distributed Klink's information forwarding (Farhat et al., SIGMOD 2021, §4): each node publishes what its
 * scheduler collected about its tasks every cycle, and a node holding part of a query receives the other parts'
 * last snapshots: the source's watermark progress (network delays) downstream, the downstream tasks' queues and
 * costs upstream. We forward each task's whole snapshot, a superset of §4's two messages. With the split
 * placement every node receives from one other node only, as §4 asks. Nodes cycle in index order in the same
 * ms, so a node sees a lower-numbered node's snapshot of this cycle and a higher-numbered node's of the last.
 */
final class Forwarding {

    private final Map<String, TaskInfo> infos = new LinkedHashMap<>();
    private final Map<String, Integer> nodeOf = new HashMap<>();
    private final Map<String, List<String>> tasksOfQuery = new LinkedHashMap<>();
    private final Map<String, TaskSnapshot> latest = new HashMap<>();

    void register(SimTask task) {
        infos.put(task.info.taskId(), task.info);
        nodeOf.put(task.info.taskId(), task.node);
        tasksOfQuery.computeIfAbsent(task.info.queryId(), q -> new ArrayList<>()).add(task.info.taskId());
    }

    void publish(TaskSnapshot snapshot) {
        latest.put(snapshot.taskId(), snapshot);
    }

    /** Tasks of {@code query} on nodes other than {@code node}, in registration order. */
    List<String> remoteTasks(String query, int node) {
        List<String> out = new ArrayList<>();
        for (String id : tasksOfQuery.getOrDefault(query, List.of())) {
            if (nodeOf.get(id) != node) {
                out.add(id);
            }
        }
        return out;
    }

    TaskInfo info(String taskId) {
        return infos.get(taskId);
    }

    /** The last snapshot its node published, or idle before its first cycle. */
    TaskSnapshot snapshot(String taskId) {
        TaskSnapshot s = latest.get(taskId);
        return s != null ? s : TaskSnapshot.idle(taskId);
    }
}
