package io.klink.workloads.late;

import java.io.Serializable;
import java.util.List;

/**
 * What a late-event workload computes per key and window, the same for AION's operator and Flink's window
 * operator: over every event of the window (recomputed at each execution, the generic non-incremental case of
 * §2), the leading fields of the key's RESULT ({@link LateResults}); the RESULT's value is the events counted.
 */
public interface LateWindowFunction extends Serializable {

    /** The names of the fields {@link #apply} returns, in order (klinkctl/workloads/&lt;workload&gt;.py reads them). */
    List<String> fields();

    /** One key's result over its events of one window, as many values as {@link #fields}. */
    List<Double> apply(List<LateEvent> events);

    /** The paper's {@code average}: the average, sum and count of the events' values. */
    final class Average implements LateWindowFunction {
        @Override
        public List<String> fields() {
            return List.of("average", "sum", "count");
        }

        @Override
        public List<Double> apply(List<LateEvent> events) {
            double sum = 0;
            for (LateEvent e : events) {
                sum += e.value();
            }
            int count = events.size();
            return List.of(count == 0 ? 0 : sum / count, sum, (double) count);
        }
    }
}
