package io.klink.agent;

import io.klink.scheduler.TaskInfo;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate;
import org.apache.flink.runtime.metrics.groups.TaskIOMetricGroup;
import org.apache.flink.runtime.taskmanager.InputGateWithMetrics;
import org.apache.flink.streaming.runtime.tasks.StreamTask;

/**
 * Reads a Flink task's counters: records and bytes in/out from the task's IO metric group, the bytes
 * queued in its input gates. {@code Environment.getAllInputGates()} hands out {@link InputGateWithMetrics}
 * wrappers, which do not expose the queue; the wrapped {@link SingleInputGate} does
 * ({@code getSizeOfQueuedBuffers()}, the call behind Flink's own inputQueueSize gauge).
 */
final class FlinkTaskProbe implements TaskProbe {

    private static final Field WRAPPED_GATE = wrappedGateField();

    private final TaskIOMetricGroup io;
    private final List<SingleInputGate> gates = new ArrayList<>();

    FlinkTaskProbe(StreamTask<?, ?> task) {
        Environment env = task.getEnvironment();
        this.io = env.getMetricGroup().getIOMetricGroup();
        IndexedInputGate[] all = env.getAllInputGates();
        if (all != null) {
            for (IndexedInputGate gate : all) {
                SingleInputGate single = unwrap(gate);
                if (single != null) {
                    gates.add(single);
                }
            }
        }
    }

    static TaskInfo describe(StreamTask<?, ?> task) {
        Environment env = task.getEnvironment();
        String name = task.getName();
        String vertex = env.getTaskInfo().getTaskName();
        boolean source = TaskNames.isSource(task.getClass().getName());
        boolean window = TaskNames.isWindow(vertex);
        return new TaskInfo(env.getExecutionId().toString(), TaskNames.queryId(name), vertex,
                env.getTaskInfo().getIndexOfThisSubtask(), -1, source, window,
                !window && TaskNames.isSink(vertex), List.of());
    }

    @Override
    public long recordsIn() {
        return io.getNumRecordsInCounter().getCount();
    }

    @Override
    public long recordsOut() {
        return io.getNumRecordsOutCounter().getCount();
    }

    @Override
    public long queuedBytes() {
        long sum = 0;
        for (SingleInputGate gate : gates) {
            sum += gate.getSizeOfQueuedBuffers();
        }
        return sum;
    }

    @Override
    public long bytesIn() {
        return io.getNumBytesInCounter().getCount();
    }

    private static SingleInputGate unwrap(IndexedInputGate gate) {
        IndexedInputGate g = gate;
        for (int depth = 0; depth < 4 && g != null; depth++) {
            if (g instanceof SingleInputGate single) {
                return single;
            }
            if (g instanceof InputGateWithMetrics && WRAPPED_GATE != null) {
                try {
                    g = (IndexedInputGate) WRAPPED_GATE.get(g);
                    continue;
                } catch (IllegalAccessException | ClassCastException e) {
                    return null;
                }
            }
            return null;
        }
        return null;
    }

    private static Field wrappedGateField() {
        try {
            Field f = InputGateWithMetrics.class.getDeclaredField("inputGate");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("klink-scheduler: input queue lengths unavailable (" + e + ")");
            return null;
        }
    }
}
