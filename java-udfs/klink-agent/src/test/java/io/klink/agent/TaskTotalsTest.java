package io.klink.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.klink.scheduler.TaskInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TaskTotalsTest {

    /** Each fake task has its own (never started) thread, so that the fake CPU clock can tell them apart. */
    private final Map<Thread, Long> cpuNs = new HashMap<>();
    private final List<TaskHandle> registered = new ArrayList<>();
    private final MemoryOutput out = new MemoryOutput();

    private TaskHandle task(String id, String vertex, int subtask, boolean source, boolean window) {
        Thread thread = new Thread(() -> { });
        cpuNs.put(thread, 0L);
        TaskHandle h = new TaskHandle(new TaskInfo(id, TaskNames.queryId(vertex), vertex, subtask, -1, source, window,
                false, List.of()), thread, new FakeProbe());
        registered.add(h);
        return h;
    }

    private static FakeProbe probe(TaskHandle h) {
        return (FakeProbe) h.probe;
    }

    private void advance(TaskHandle h, long in, long out, long cpu, long bytes) {
        probe(h).in += in;
        probe(h).out += out;
        probe(h).bytesIn += bytes;
        cpuNs.merge(h.thread, cpu, Long::sum);
    }

    private TaskTotals start() {
        return new TaskTotals(List.copyOf(registered), t -> cpuNs.getOrDefault(t, -1L));
    }

    private List<List<String>> rows() {
        List<String> lines = out.lines(TaskTotals.FILE_NAME);
        assertEquals(TaskTotals.CSV_HEADER, lines.get(0));
        return lines.subList(1, lines.size()).stream().map(line -> List.of(line.split(",", -1))).toList();
    }

    @Test
    void eachTaskGetsItsCountersFromTheRunsStartToItsEnd() {
        TaskHandle source = task("a", "Source: q07/source -> q07/markers -> q07/filter (1/1)#0", 0, true, false);
        TaskHandle window = task("b", "q07/window -> q07/output -> q07/metrics-sink", 1, false, true);
        advance(source, 1_000, 900, 5_000_000, 0); // before the run: not counted
        advance(window, 800, 10, 7_000_000, 64_000);
        TaskTotals totals = start();
        advance(source, 200, 150, 1_000_000, 0);
        totals.observe(List.copyOf(registered));
        advance(window, 150, 3, 600_000, 12_000);
        totals.finish(List.copyOf(registered), out);

        assertEquals(List.of(
                List.of("q07:src#0", "q07", "source", "source", "0", "200", "150", "1000000", "0"),
                List.of("q07:win#1", "q07", "window", "window", "1", "150", "3", "600000", "12000")), rows());
    }

    @Test
    void aTaskRegisteredDuringTheRunCountsFromZero() {
        TaskTotals totals = start();
        TaskHandle late = task("c", "q02/join -> q02/output", 0, false, false);
        advance(late, 40, 20, 300_000, 4_000);
        totals.observe(List.copyOf(registered));
        advance(late, 10, 5, 100_000, 1_000);
        totals.finish(List.copyOf(registered), out);

        assertEquals(List.of(List.of("q02:op#0", "q02", "join", "op", "0", "50", "25", "400000", "5000")),
                rows());
    }

    @Test
    void aTaskThatEndedBeforeTheRunKeepsWhatTheLastLookSaw() {
        TaskHandle ended = task("d", "q03/stats-window -> q03/stats-rows", 0, false, true);
        TaskTotals totals = start();
        advance(ended, 30, 3, 200_000, 3_000);
        totals.observe(List.copyOf(registered));
        advance(ended, 5, 1, 0, 500);
        cpuNs.put(ended.thread, -1L); // the JVM has no CPU time for a thread that ended
        totals.observe(List.copyOf(registered)); // still registered when the thread was already gone
        registered.remove(ended);
        totals.finish(List.copyOf(registered), out);

        assertEquals(List.of(List.of("q03:win#0", "q03", "stats-window", "window", "0", "30", "3", "200000", "3000")),
                rows());
    }

    @Test
    void cpuIsMinusOneWhereTheJvmCannotMeasureIt() {
        TaskHandle source = task("e", "Source: q01/source", 0, true, false);
        TaskTotals totals = new TaskTotals(List.copyOf(registered), t -> -1L);
        advance(source, 10, 10, 0, 0);
        totals.finish(List.copyOf(registered), out);

        assertEquals(List.of(List.of("q01:src#0", "q01", "source", "source", "0", "10", "10", "-1", "0")),
                rows());
    }
}
