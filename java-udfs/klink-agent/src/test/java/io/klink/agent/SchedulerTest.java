package io.klink.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.klink.scheduler.TaskInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SchedulerTest {

    private final List<TaskHandle> handles = new ArrayList<>();
    private final List<FakeProbe> probes = new ArrayList<>();
    private final Map<String, MemoryOutput> runs = new HashMap<>();
    private final Scheduler scheduler = new Scheduler(() -> List.copyOf(handles), t -> 1_000_000L, 2,
            run -> runs.computeIfAbsent(run.run(), r -> new MemoryOutput()));

    private List<String> lines(String run, String file) {
        return runs.containsKey(run) ? runs.get(run).lines(file) : List.of();
    }

    @AfterEach
    void reset() {
        scheduler.deactivate();
        TaskGate.reset();
    }

    private void addTasks(int n) {
        for (int i = 0; i < n; i++) {
            FakeProbe probe = new FakeProbe();
            probe.queuedBytes = 5;
            probes.add(probe);
            handles.add(new TaskHandle(new TaskInfo("t" + i, "q0" + i, "q0" + i + "/window", 0, -1, false, true,
                    false, List.of()), Thread.currentThread(), probe));
        }
    }

    @Test
    void roundRobinRunsCAtOnceAndLogsEveryCycle() throws Exception {
        addTasks(5);
        scheduler.apply(new RunControl("rr", Map.of("r", "50"), "run"));
        assertTrue(scheduler.active());
        assertTrue(TaskGate.isActive());
        assertEquals(50, scheduler.cycleMs());
        assertEquals(2, scheduler.maxRunning());
        for (int c = 0; c < 3; c++) {
            List<String> chosen = scheduler.cycle(1000 + 50L * c);
            assertEquals(2, chosen.size());
            long paused = handles.stream().filter(TaskHandle::isPauseRequested).count();
            assertEquals(3, paused);
            for (TaskHandle h : handles) {
                assertEquals(!chosen.contains(h.info().taskId()), h.isPauseRequested());
            }
        }
        List<String> rows = lines("run", "scheduler.csv");
        assertEquals(Scheduler.CSV_HEADER, rows.get(0));
        assertEquals(4, rows.size());
        String[] row = rows.get(1).split(",", -1);
        assertEquals("1000", row[0]);
        assertEquals("rr", row[1]);
        assertEquals("5", row[2]);
        assertEquals("2", row[3]);
        assertEquals("3", row[4]);
        assertTrue(Long.parseLong(row[5]) > 0);
        assertEquals(2, row[6].split(";").length);
        assertEquals("0", row[10], "the first cycle of a run counts no collection time before it");
        for (String later : rows.subList(2, 4)) {
            assertTrue(Long.parseLong(later.split(",", -1)[10]) >= 0, later);
        }

        scheduler.deactivate();
        assertFalse(TaskGate.isActive());
        assertTrue(handles.stream().noneMatch(TaskHandle::isPauseRequested));
    }

    @Test
    void maxRunningComesFromParameterC() {
        addTasks(4);
        scheduler.apply(new RunControl("fcfs", Map.of("C", "3"), "run"));
        assertEquals(3, scheduler.maxRunning());
        assertEquals(3, scheduler.cycle(1).size());
    }

    @Test
    void queuedBytesBecomeRecordsByTheMeanRecordSizeSeen() {
        assertEquals(0, Scheduler.queuedRecords(0, 100.0));
        assertEquals(0, Scheduler.queuedRecords(3200, Double.NaN), "size not known yet");
        assertEquals(32, Scheduler.queuedRecords(3200, 100.0));
        assertEquals(1, Scheduler.queuedRecords(10, 100.0), "a partly filled buffer holds a record");
    }

    @Test
    void fcfsRunsThePipelineWhoseOldestQueuedRecordArrivedFirst() {
        addTasks(2);
        for (FakeProbe p : probes) {
            p.queuedBytes = 0;
        }
        scheduler.apply(new RunControl("fcfs", Map.of("C", "1"), "run"));
        scheduler.cycle(1000);
        for (FakeProbe p : probes) { // 100 records of 100 bytes consumed: the mean record size is known
            p.in = 100;
            p.bytesIn = 10_000;
        }
        scheduler.cycle(1100);
        // both start queueing in (1100, 1200]: q01 holds 50 records that arrived from just after 1100 on;
        // q00 consumed 50 of its 60 arrivals, so its oldest queued record arrived near 1200
        probes.get(1).queuedBytes = 5_000;
        probes.get(0).in = 150;
        probes.get(0).bytesIn = 15_000;
        probes.get(0).queuedBytes = 1_000;
        // waiting time alone would tie (both runnable since this cycle) and pick t0 by id
        assertEquals(List.of("t1"), scheduler.cycle(1200));
    }

    @Test
    void defaultPolicyNeverActivatesTheGate() {
        addTasks(3);
        scheduler.apply(new RunControl("default", Map.of(), "run"));
        assertFalse(scheduler.active());
        assertFalse(TaskGate.isActive());
        assertTrue(scheduler.cycle(1).isEmpty());
        assertTrue(lines("run", "scheduler.csv").isEmpty());
    }

    @Test
    void defaultPausesNothingButWritesTheTasksTotalsWhenTheRunEnds() throws Exception {
        addTasks(2);
        probes.get(0).in = 500; // before the run
        scheduler.apply(new RunControl("default", Map.of(), "run"));
        probes.get(0).in += 70;
        probes.get(0).out += 7;
        scheduler.observeTasks();
        assertFalse(TaskGate.isActive());
        assertTrue(handles.stream().noneMatch(TaskHandle::isPauseRequested));
        assertTrue(lines("run", TaskTotals.FILE_NAME).isEmpty(), "written when the run ends");

        scheduler.deactivate();
        List<String> rows = lines("run", TaskTotals.FILE_NAME);
        assertEquals(List.of(TaskTotals.CSV_HEADER, "q00:win#0,q00,window,window,0,70,7,0,0",
                "q01:win#0,q01,window,window,0,0,0,0,0"), rows);
        assertTrue(lines("run", "scheduler.csv").isEmpty());
    }

    @Test
    void switchingToTheNextRunSendsThePausingRunsTotalsAsThatRuns() throws Exception {
        addTasks(3);
        scheduler.apply(new RunControl("rr", Map.of("C", "1"), "rr"));
        for (FakeProbe p : probes) {
            p.in += 10;
        }
        scheduler.cycle(1000);
        scheduler.apply(new RunControl("default", Map.of(), "default"));

        List<String> rows = lines("rr", TaskTotals.FILE_NAME);
        assertEquals(4, rows.size());
        assertTrue(rows.subList(1, 4).stream().allMatch(row -> row.split(",")[5].equals("10")), rows.toString());
        assertTrue(lines("default", TaskTotals.FILE_NAME).isEmpty(), "that run goes on");
        assertTrue(runs.get("rr").closed, "the harness is told the ended run is complete");
        assertFalse(runs.get("default").closed);
    }

    @Test
    void invalidPolicyOrParameterLeavesDefault() {
        addTasks(2);
        assertThrows(IllegalArgumentException.class,
                () -> scheduler.apply(new RunControl("edf", Map.of(), "run")));
        assertFalse(scheduler.active());
        assertThrows(IllegalArgumentException.class,
                () -> scheduler.apply(new RunControl("rr", Map.of("r", "fast"), "run")));
        assertFalse(scheduler.active());
        assertFalse(TaskGate.isActive());
    }

    @Test
    void klinkWritesEveryPredictedSwmToEstimatorCsvWithItsSkipReason() throws Exception {
        for (TaskInfo info : List.of(new TaskInfo("src", "q00", "q00/source", 0, -1, true, false, false, List.of()),
                new TaskInfo("win", "q00", "q00/window", 0, -1, false, true, false, List.of()))) {
            handles.add(new TaskHandle(info, Thread.currentThread(), new FakeProbe())); // progress keyed by thread
        }
        try {
            scheduler.apply(new RunControl("klink", Map.of("r", "100"), "run"));
            io.klink.scheduler.WindowProgress.report(500, 1000);
            scheduler.cycle(700);
            io.klink.scheduler.WindowProgress.report(1100, 1000);
            scheduler.cycle(800);                    // crossing between the cycles, no history yet
            io.klink.scheduler.WindowProgress.report(1100, 2000);
            scheduler.cycle(900);                    // the window fired; deadline 2000 pending
            scheduler.deactivate();                  // ... and never reached
        } finally {
            io.klink.scheduler.WindowProgress.report(io.klink.scheduler.TaskSnapshot.NO_WATERMARK,
                    io.klink.scheduler.TaskSnapshot.NO_DEADLINE);
        }
        List<String> rows = lines("run", "estimator.csv");
        assertEquals(Scheduler.ESTIMATOR_HEADER, rows.get(0));
        assertEquals(5, rows.size(), String.join("\n", rows));
        String[] seen = rows.get(1).split(",", -1);
        // interpolated: 700 + (1000 − 500) / (1100 − 500) · 100 = 783
        assertEquals(List.of("klink", "1000", "783", "", "", "no_history"),
                List.of(seen[0], seen[4], seen[9], seen[10], seen[11], seen[12]));
        String[] ended = rows.get(4).split(",", -1);
        assertEquals(List.of("lr", "2000", "", "", "", "run_ended"),
                List.of(ended[0], ended[4], ended[9], ended[10], ended[11], ended[12]));
    }

    @Test
    void everyPolicyRunsACycleOnTheFramework() {
        addTasks(6);
        for (String name : io.klink.scheduler.policy.Policies.NAMES) {
            // strict: Klink would otherwise run everything at this light load (its work-conserving rule)
            scheduler.apply(new RunControl(name, Map.of("strict", "true"), name.equals("default") ? null : name));
            for (int c = 0; c < 5; c++) {
                for (FakeProbe p : probes) {
                    p.in += 100;
                    p.out += 50;
                }
                List<String> chosen = scheduler.cycle(10_000 + 120L * c);
                if (!name.equals("default")) {
                    assertTrue(chosen.size() <= 2, name + " chose " + chosen);
                }
            }
            scheduler.deactivate();
        }
    }

    @Test
    void withForwardingTheOtherTaskManagersTasksOfItsQueriesJoinTheCycleButOnlyLocalOnesAreChosen() {
        handles.add(new TaskHandle(new TaskInfo("src", "q00", "Source: q00/source", 0, -1, true, false, false,
                List.of()), Thread.currentThread(), new FakeProbe()));
        TaskInfo remoteWindow = new TaskInfo("win", "q00", "q00/window", 0, -1, false, true, false, List.of());
        TaskInfo otherQuery = new TaskInfo("w1", "q01", "q01/window", 0, -1, false, true, false, List.of());
        scheduler.apply(new RunControl("klink", Map.of("C", "1", "strict", "true", "forward", "true"), "run"));
        runs.get("run").forwarded = ForwardedTasks.encode(List.of(remoteWindow, otherQuery),
                List.of(io.klink.scheduler.TaskSnapshot.idle("win"), io.klink.scheduler.TaskSnapshot.idle("w1")));
        assertEquals(List.of("src"), scheduler.cycle(1000));
        assertTrue(runs.get("run").sent.get(0).startsWith("src\tq00\t"), runs.get("run").sent.toString());
        String[] row = lines("run", "scheduler.csv").get(1).split(",", -1);
        assertEquals("1", row[2]); // tasks: this TaskManager's
        assertEquals("1", row[11]); // remote_tasks: q00's window, not q01's
    }

    @Test
    void eachRowSaysWhatTheSourcesReadSinceThePreviousCycle() {
        FakeProbe source = new FakeProbe();
        handles.add(new TaskHandle(new TaskInfo("src", "q00", "Source: q00/source", 0, -1, true, false, false,
                List.of()), Thread.currentThread(), source));
        addTasks(1);
        scheduler.apply(new RunControl("rr", Map.of("C", "1"), "run"));
        source.in = 100;
        probes.get(0).in = 40; // a window task's records are not the sources'
        scheduler.cycle(1000);
        source.in = 350;
        scheduler.cycle(1120);
        String[] first = lines("run", "scheduler.csv").get(1).split(",", -1);
        String[] second = lines("run", "scheduler.csv").get(2).split(",", -1);
        assertEquals("0", first[12]); // nothing to compare with at a run's first cycle
        assertEquals("250", second[12]);
        assertTrue(Long.parseLong(second[13]) >= 0, "task_cpu_ns");
    }

    @Test
    void withoutHotSpotsTotalsARowSaysItsSafepointTimeIsUnknown() {
        addTasks(1);
        scheduler.apply(new RunControl("rr", Map.of("C", "1"), "run"));
        scheduler.cycle(1000);
        assertEquals("-1", lines("run", "scheduler.csv").get(1).split(",", -1)[14]); // no Instrumentation opened them
    }

    @Test
    void withoutForwardingNothingIsExchanged() {
        addTasks(2);
        scheduler.apply(new RunControl("klink", Map.of("C", "1"), "run"));
        scheduler.cycle(1000);
        assertTrue(runs.get("run").sent.isEmpty());
        assertEquals("0", lines("run", "scheduler.csv").get(1).split(",", -1)[11]); // remote_tasks
    }

    @Test
    void priorityEnforcementDemotesTheTasksNotChosenInsteadOfPausingThem() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Enforcement.priorityWorks(),
                "this JVM ignores thread priorities (needs -XX:ThreadPriorityPolicy=1 and root)");
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    // test over
                }
            });
            t.start();
            threads.add(t);
            handles.add(new TaskHandle(new TaskInfo("t" + i, "q0" + i, "q0" + i + "/window", 0, -1, false, true,
                    false, List.of()), t, new FakeProbe()));
        }
        try {
            scheduler.apply(new RunControl("rr", Map.of("C", "1", "enforce", "priority"), "run"));
            List<String> chosen = scheduler.cycle(1000);
            assertEquals(1, chosen.size());
            for (TaskHandle h : handles) {
                boolean run = chosen.contains(h.info().taskId());
                assertFalse(h.isPauseRequested(), "nobody is paused");
                assertEquals(run ? Thread.NORM_PRIORITY : Enforcement.DEMOTED_PRIORITY, h.thread.getPriority());
            }
            scheduler.deactivate();
            assertTrue(threads.stream().allMatch(t -> t.getPriority() == Thread.NORM_PRIORITY));
        } finally {
            threads.forEach(Thread::interrupt);
        }
    }

    @Test
    void anUnknownEnforcementLeavesTheSchedulerOnDefault() {
        addTasks(1);
        assertThrows(IllegalArgumentException.class,
                () -> scheduler.apply(new RunControl("rr", Map.of("enforce", "freeze"), "run")));
        assertFalse(scheduler.active());
    }
}
