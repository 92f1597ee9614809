package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.TaskInfo;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.klink.scheduler.policy.Fx.T0;
import static io.klink.scheduler.policy.Fx.snap;
import static io.klink.scheduler.policy.Fx.source;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RandomPolicyTest {

    private static final List<TaskInfo> TASKS = List.of(source("t1", "q1"), source("t2", "q2"), source("t3", "q3"),
            source("t4", "q4"));

    private static SchedulerState state(long now) {
        return Fx.state(now, 100, 0.1, TASKS, snap("t1").queued(1), snap("t2").queued(1), snap("t3").queued(1),
                snap("t4"));
    }

    @Test
    void choosesCRunnablePipelinesReproduciblyAndReachesEveryOne() {
        List<List<String>> first = new ArrayList<>();
        List<List<String>> again = new ArrayList<>();
        var a = Policies.create("random", Map.of());
        var b = Policies.create("random", Map.of());
        Set<String> seen = new HashSet<>();
        for (int c = 0; c < 50; c++) {
            List<String> chosen = a.choose(state(T0 + 100L * c), 2);
            assertEquals(2, chosen.size());
            assertTrue(!chosen.contains("t4"), "t4 has no input and C slots are taken by runnable ones");
            seen.addAll(chosen);
            first.add(chosen);
            again.add(b.choose(state(T0 + 100L * c), 2));
        }
        assertEquals(first, again, "same seed, same choices");
        assertEquals(Set.of("t1", "t2", "t3"), seen);
    }
}
