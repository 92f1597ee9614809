package io.klink.workloads.late;

import io.klink.metrics.Envelope;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.triggers.TriggerResult;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * The baselines' window logic on Flink's own window operator (heap, RocksDB or ForSt state): the workload's
 * {@link LateWindowFunction} over every event of the window, recomputed from the window's list state at each firing
 * (the generic case AION targets, §2: no incremental aggregate), and an event-time trigger that also counts the late events it accepts.
 */
public final class FlinkLateWindow {

    /** Per key and window: late events accepted (the trigger's) and executions so far (the function's). */
    static final ValueStateDescriptor<Long> LATE = new ValueStateDescriptor<>("late-accepted", Long.class);
    static final ValueStateDescriptor<Integer> EXECUTIONS = new ValueStateDescriptor<>("executions", Integer.class);

    private FlinkLateWindow() {}

    /**
     * Fires when the watermark passes the window's end and again on every late event accepted within the allowed
     * lateness (what Flink's event-time trigger does), counting those late events in the window's state.
     */
    public static final class CountingTrigger extends Trigger<Envelope, TimeWindow> {
        @Override
        public TriggerResult onElement(Envelope element, long timestamp, TimeWindow window, TriggerContext ctx)
                throws Exception {
            if (window.maxTimestamp() <= ctx.getCurrentWatermark()) {
                ValueState<Long> late = ctx.getPartitionedState(LATE);
                late.update(late.value() == null ? 1 : late.value() + 1);
                return TriggerResult.FIRE;
            }
            ctx.registerEventTimeTimer(window.maxTimestamp());
            return TriggerResult.CONTINUE;
        }

        @Override
        public TriggerResult onEventTime(long time, TimeWindow window, TriggerContext ctx) {
            return time == window.maxTimestamp() ? TriggerResult.FIRE : TriggerResult.CONTINUE;
        }

        @Override
        public TriggerResult onProcessingTime(long time, TimeWindow window, TriggerContext ctx) {
            return TriggerResult.CONTINUE;
        }

        @Override
        public void clear(TimeWindow window, TriggerContext ctx) throws Exception {
            ctx.deleteEventTimeTimer(window.maxTimestamp());
            ctx.getPartitionedState(LATE).clear();
        }
    }

    /** Every key's RESULT (fields: the window function's, then execution and late events accepted) at each
     *  firing, the function applied to the window's whole list state. */
    public static final class Apply extends ProcessWindowFunction<Envelope, Envelope, String, TimeWindow> {
        private final LateWindowFunction function;

        public Apply(LateWindowFunction function) {
            this.function = function;
        }

        @Override
        public void process(String key, Context context, Iterable<Envelope> events, Collector<Envelope> out)
                throws Exception {
            List<LateEvent> window = new ArrayList<>();
            for (Envelope e : events) {
                window.add(new LateEvent(key, e.fields[0], e.timestamp, e.payload));
            }
            ValueState<Integer> executions = context.windowState().getState(EXECUTIONS);
            int execution = executions.value() == null ? 1 : executions.value() + 1;
            executions.update(execution);
            Long late = context.windowState().getState(LATE).value();
            out.collect(LateResults.result(context.window().getEnd(), key, function.apply(window), window.size(),
                    execution, late == null ? 0 : late));
        }

        @Override
        public void clear(Context context) throws Exception {
            context.windowState().getState(EXECUTIONS).clear();
        }
    }
}
