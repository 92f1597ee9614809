package io.klink.scheduler;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DataModelTest {

    @Test
    void taskInfoDerivesStageFromFlagsWhenUnknown() {
        assertEquals(0, new TaskInfo("a", "q1", "src", 0, -1, true, false, false, null).stage());
        assertEquals(1, new TaskInfo("b", "q1", "map", 0, -1, false, false, false, null).stage());
        assertEquals(2, new TaskInfo("c", "q1", "win", 0, -1, false, true, true, null).stage());
        assertEquals(3, new TaskInfo("d", "q1", "sink", 0, -1, false, false, true, null).stage());
        TaskInfo join = new TaskInfo("j", "q3", "join", 1, 2, false, true, false, List.of("q1", "q2"));
        assertTrue(join.isJoin());
        assertFalse(new TaskInfo("e", "q1", "x", 0, 5, false, false, false, List.of()).isJoin());
        assertThrows(IllegalArgumentException.class, () -> new TaskInfo(" ", "q1", "x", 0, 0, false, false, false, null));
    }

    @Test
    void snapshotDefaultsAndStateValidation() {
        TaskSnapshot idle = TaskSnapshot.idle("a");
        assertFalse(idle.runnable());
        assertFalse(idle.hasWatermark());
        assertFalse(idle.hasDeadline());
        assertEquals(1.0, idle.selectivityOrOne());
        TaskInfo a = new TaskInfo("a", "q1", "src", 0, 0, true, false, false, null);
        TaskInfo b = new TaskInfo("b", "q1", "win", 0, 1, false, true, false, null);
        SchedulerState s = SchedulerState.of(10, 120, List.of(b, a),
                List.of(new TaskSnapshot("b", 3, 10, 1, 500, 0.1, 5, 100, 7, true)), 0.5);
        assertEquals(List.of("a", "b"), s.taskIds());
        assertEquals(List.of("b"), s.runnableTaskIds());
        assertFalse(s.snapshot("a").runnable()); // nothing collected: idle
        assertThrows(IllegalArgumentException.class, () -> SchedulerState.of(0, 0, List.of(a), List.of(), 0.5));
        assertThrows(IllegalArgumentException.class, () -> SchedulerState.of(0, 120, List.of(a), List.of(), 1.2));
        assertThrows(IllegalArgumentException.class, () -> SchedulerState.of(0, 120, List.of(a, a), List.of(), 0.1));
    }
}
