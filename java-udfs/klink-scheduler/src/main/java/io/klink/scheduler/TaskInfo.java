package io.klink.scheduler;

import java.util.List;
import java.util.Objects;

/**
 * What the scheduler knows about a task from the moment it registers (paper §5, "register").
 * Immutable; one per running Flink task (one subtask of one job vertex / operator chain).
 *
 * @param taskId           unique id of the task inside this scheduler (e.g. the execution attempt id)
 * @param queryId          the query (independent pipeline) the task belongs to, e.g. {@code "q07"}
 * @param vertexName       job vertex (operator chain) name, for logs and result tables
 * @param subtaskIndex     index of this parallel subtask (0-based)
 * @param stage            position of the task's vertex along its query's pipeline, 0 = source,
 *                         increasing downstream. Tasks of one query with equal stage are parallel
 *                         subtasks of one step. A negative value asks for the default derived from the
 *                         flags: source 0, other 1, window 2, sink (not a window) 3.
 * @param isSource         the task reads from outside (Kafka); its queue is the unread backlog
 * @param isWindow         the task holds event-time windows (it reports {@code nextWindowDeadline});
 *                         a windowed join is a window task with {@code upstreamQueryIds}
 * @param isSink           the task writes results out of the pipeline
 * @param upstreamQueryIds for a join: the query ids whose streams feed this task (the join's inputs);
 *                         empty otherwise. The tasks of those queries form the join's input pipelines.
 */
public record TaskInfo(
        String taskId,
        String queryId,
        String vertexName,
        int subtaskIndex,
        int stage,
        boolean isSource,
        boolean isWindow,
        boolean isSink,
        List<String> upstreamQueryIds) {

    public TaskInfo {
        Objects.requireNonNull(taskId, "taskId");
        Objects.requireNonNull(queryId, "queryId");
        vertexName = vertexName == null ? "" : vertexName;
        if (taskId.isBlank() || queryId.isBlank()) {
            throw new IllegalArgumentException("taskId and queryId must not be blank");
        }
        if (subtaskIndex < 0) {
            throw new IllegalArgumentException("subtaskIndex must be >= 0, got " + subtaskIndex);
        }
        if (stage < 0) {
            stage = defaultStage(isSource, isWindow, isSink);
        }
        upstreamQueryIds = upstreamQueryIds == null ? List.of() : List.copyOf(upstreamQueryIds);
    }

    /** The stage used when the registering side does not know the vertex's position. */
    public static int defaultStage(boolean source, boolean window, boolean sink) {
        if (source) {
            return 0;
        }
        if (window) {
            return 2;
        }
        return sink ? 3 : 1;
    }

    /** True if this task joins the streams of other queries. */
    public boolean isJoin() {
        return !upstreamQueryIds.isEmpty();
    }
}
