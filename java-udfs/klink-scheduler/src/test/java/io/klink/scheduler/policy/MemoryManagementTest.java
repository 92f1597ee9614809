package io.klink.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** §3.4's mode switch on its own: enter at b, leave below b or after K cycles, then K cycles of slack order. */
class MemoryManagementTest {

    private static MemoryManagement memory(boolean enabled, String b, String k) {
        return new MemoryManagement(enabled, PolicyConfig.parse(Map.of("b", b, "mmcycles", k)));
    }

    private static List<Boolean> modes(MemoryManagement mm, double... used) {
        List<Boolean> out = new ArrayList<>();
        for (double u : used) {
            mm.update(u);
            out.add(mm.active());
        }
        return out;
    }

    @Test
    void entersAtTheBoundAndLeavesBelowIt() {
        assertEquals(List.of(false, true, true, false, true),
                modes(memory(true, "0.8", "5"), 0.79, 0.8, 0.9, 0.79, 0.85));
    }

    @Test
    void afterKCyclesSlackOrderRunsForKCycles() {
        assertEquals(List.of(true, true, true, false, false, false, true),
                modes(memory(true, "0.5", "3"), 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9));
    }

    @Test
    void disabledNeverActivates() {
        MemoryManagement mm = memory(false, "0.5", "3");
        assertFalse(mm.enabled());
        assertEquals(List.of(false, false), modes(mm, 0.99, 1.0));
    }
}
