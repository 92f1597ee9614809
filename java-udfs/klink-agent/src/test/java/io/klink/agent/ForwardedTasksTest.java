package io.klink.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.klink.scheduler.TaskInfo;
import io.klink.scheduler.TaskSnapshot;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ForwardedTasksTest {

    private static final TaskInfo JOIN = new TaskInfo("a1", "q02", "q02/join\twith tab", 1, 2, false, true, false,
            List.of("q00", "q01"));
    private static final TaskSnapshot JOIN_NOW = new TaskSnapshot("a1", 7, 100, 50, 1234.5, Double.NaN,
            TaskSnapshot.NO_WATERMARK, TaskSnapshot.NO_DEADLINE, TaskSnapshot.UNKNOWN_ARRIVAL, true);
    private static final TaskInfo SOURCE = new TaskInfo("b2", "q03", "Source: q03/source", 0, 0, true, false, false,
            List.of());
    private static final TaskSnapshot SOURCE_NOW = new TaskSnapshot("b2", 0, 9, 9, 0, 1.0, 5000, 6000, 42, false);

    @Test
    void everyFieldSurvivesTheTripButTabsInNames() {
        String text = ForwardedTasks.encode(List.of(JOIN, SOURCE), List.of(JOIN_NOW, SOURCE_NOW));
        List<ForwardedTasks.Remote> back = ForwardedTasks.decode(text, Set.of("q02", "q03"), Set.of());
        assertEquals(List.of(new ForwardedTasks.Remote(new TaskInfo("a1", "q02", "q02/join with tab", 1, 2, false,
                true, false, List.of("q00", "q01")), JOIN_NOW), new ForwardedTasks.Remote(SOURCE, SOURCE_NOW)), back);
    }

    @Test
    void onlyOtherTaskManagersTasksOfThisOnesQueriesAreKeptTheLastLineWinning() {
        TaskSnapshot later = new TaskSnapshot("b2", 3, 12, 12, 0, 1.0, 5200, 6000, 42, true);
        String text = ForwardedTasks.encode(List.of(JOIN, SOURCE, SOURCE), List.of(JOIN_NOW, SOURCE_NOW, later));
        assertEquals(List.of(new ForwardedTasks.Remote(SOURCE, later)),
                ForwardedTasks.decode(text, Set.of("q03"), Set.of()));
        assertTrue(ForwardedTasks.decode(text, Set.of("q02", "q03"), Set.of("a1", "b2")).isEmpty());
    }

    @Test
    void aMalformedLineIsSkippedNotFatal() {
        String good = ForwardedTasks.encode(List.of(SOURCE), List.of(SOURCE_NOW));
        String text = "garbage\n" + good.replace("\t0\t0\t", "\tzero\t0\t") + "\n\n" + good;
        assertEquals(List.of(new ForwardedTasks.Remote(SOURCE, SOURCE_NOW)),
                ForwardedTasks.decode(text, Set.of("q03"), Set.of()));
    }
}
