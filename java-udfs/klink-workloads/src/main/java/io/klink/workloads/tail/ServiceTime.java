package io.klink.workloads.tail;

import java.io.Serializable;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.runtime.metrics.scope.ScopeFormat;

/**
 * What a stage spends per record ({@link StageCost}, mean {@code micros}) and how much slower single TaskManagers
 * are: {@code speeds} by resource id (klinkctl's {@code taskmanager-N}), for the wall-clock cost models, where a
 * service time on a TaskManager of speed s lasts 1/s as long ({@code --stage-speeds}: the seed's smaller VM,
 * §5.1.3 scenario (c), without the CPU contention a CPU quota adds). CPU costs take no speeds: a CPU quota on the
 * TaskManager slows those. {@code stalls}: the tasks' stalls on top ({@link Stalls}).
 */
public record ServiceTime(StageCost model, long micros, Map<String, Double> speeds, Stalls stalls)
        implements Serializable {

    /** The spout's: nothing to spend. */
    public static final ServiceTime NONE = new ServiceTime(StageCost.CPU, 0, Map.of());

    public ServiceTime {
        speeds = Map.copyOf(speeds == null ? Map.of() : speeds);
        stalls = stalls == null ? Stalls.NONE : stalls;
        if (micros < 0 || speeds.values().stream().anyMatch(speed -> !(speed > 0 && speed <= 1))) {
            throw new IllegalArgumentException("a service time needs micros >= 0 and speeds in (0, 1], got "
                    + micros + " and " + speeds);
        }
        if (model == StageCost.CPU && !speeds.isEmpty()) {
            throw new IllegalArgumentException("stage speeds apply to the wall-clock cost models, not cpu");
        }
    }

    /** Without stalls. */
    public ServiceTime(StageCost model, long micros, Map<String, Double> speeds) {
        this(model, micros, speeds, Stalls.NONE);
    }

    /** The mean service time where the function of {@code context} runs (the context is read only with speeds). */
    public long microsIn(Supplier<RuntimeContext> context) {
        if (speeds.isEmpty()) {
            return micros;
        }
        return microsOn(context.get().getMetricGroup().getAllVariables().get(ScopeFormat.SCOPE_TASKMANAGER_ID));
    }

    /** The mean service time on the TaskManager with this resource id. */
    long microsOn(String resourceId) {
        Double speed = speeds.get(resourceId);
        return speed == null ? micros : Math.round(micros / speed);
    }
}
