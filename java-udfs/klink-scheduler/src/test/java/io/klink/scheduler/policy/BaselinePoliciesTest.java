package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.TaskInfo;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.klink.scheduler.policy.Fx.T0;
import static io.klink.scheduler.policy.Fx.op;
import static io.klink.scheduler.policy.Fx.sink;
import static io.klink.scheduler.policy.Fx.snap;
import static io.klink.scheduler.policy.Fx.source;
import static io.klink.scheduler.policy.Fx.window;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** rr, fcfs, hr and sbox on small synthetic states. */
class BaselinePoliciesTest {

    private static List<TaskInfo> fiveSources() {
        List<TaskInfo> t = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            t.add(source("t" + i, "q" + i));
        }
        return t;
    }

    private static SchedulerState allRunnable(long now, List<TaskInfo> tasks) {
        List<Fx.Snap> s = new ArrayList<>();
        for (TaskInfo t : tasks) {
            s.add(snap(t.taskId()).queued(10));
        }
        return Fx.state(now, 100, 0.1, tasks, s.toArray(new Fx.Snap[0]));
    }

    // ------------------------------------------------------------------ rr

    @Test
    void roundRobinRotatesWithItsQuantum() {
        RoundRobinPolicy rr = new RoundRobinPolicy(2);
        List<TaskInfo> tasks = fiveSources();
        List<List<String>> got = new ArrayList<>();
        for (int c = 0; c < 6; c++) {
            got.add(rr.choose(allRunnable(T0 + 100L * c, tasks), 2));
        }
        assertEquals(List.of(
                List.of("t1", "t2"), List.of("t1", "t2"),
                List.of("t3", "t4"), List.of("t3", "t4"),
                List.of("t5", "t1"), List.of("t5", "t1")), got);
    }

    @Test
    void starvedTaskUnderRoundRobinGetsItsTurnWithinTheBound() {
        // n = 5 tasks, C = 2, quantum N = 1. t3 has no input during the first rotation (skipped), then
        // gets input; it must run within ⌈n/C⌉·N = 3 cycles after the turn in progress.
        RoundRobinPolicy rr = new RoundRobinPolicy(1);
        List<TaskInfo> tasks = fiveSources();
        SchedulerState withoutT3 = Fx.state(T0, 100, 0.1, tasks,
                snap("t1").queued(1), snap("t2").queued(1), snap("t3"), snap("t4").queued(1), snap("t5").queued(1));
        List<String> first = rr.choose(withoutT3, 2);
        assertEquals(List.of("t1", "t2"), first);
        List<String> second = rr.choose(withoutT3, 2);
        assertEquals(List.of("t4", "t5"), second, "t3 has no input and is skipped");
        int ranAt = -1;
        for (int c = 0; c < 3 && ranAt < 0; c++) {
            List<String> chosen = rr.choose(allRunnable(T0 + 300 + 100L * c, tasks), 2);
            if (chosen.contains("t3")) {
                ranAt = c;
            }
        }
        assertTrue(ranAt >= 0, "t3 ran within ⌈5/2⌉ = 3 turns");

        // and over any 3 consecutive cycles every always-runnable task runs at least once
        Set<String> seen = new HashSet<>();
        for (int c = 0; c < 3; c++) {
            seen.addAll(rr.choose(allRunnable(T0 + 1000 + 100L * c, tasks), 2));
        }
        assertEquals(Set.of("t1", "t2", "t3", "t4", "t5"), seen);
    }

    @Test
    void roundRobinTurnEndsWhenItsTasksRunDry() {
        RoundRobinPolicy rr = new RoundRobinPolicy(5);
        List<TaskInfo> tasks = fiveSources();
        assertEquals(List.of("t1"), rr.choose(allRunnable(T0, tasks), 1));
        SchedulerState t1Dry = Fx.state(T0 + 100, 100, 0.1, tasks,
                snap("t1"), snap("t2").queued(1), snap("t3").queued(1), snap("t4").queued(1), snap("t5").queued(1));
        assertEquals(List.of("t2"), rr.choose(t1Dry, 1));
    }

    // ------------------------------------------------------------------ fcfs

    @Test
    void fcfsPicksTheOldestQueue() {
        FcfsPolicy fcfs = new FcfsPolicy(0);
        SchedulerState s = Fx.state(T0, 100, 0.1, fiveSources(),
                snap("t1").queued(3).arrival(T0 - 500),
                snap("t2").queued(3).arrival(T0 - 2_000),
                snap("t3").queued(3).arrival(T0 - 900),
                snap("t4").queued(3),                       // arrival unknown: ranked by its wait (now)
                snap("t5").arrival(T0 - 9_000));            // oldest, but nothing queued: not runnable
        assertEquals(List.of("t2"), fcfs.choose(s, 1));
        assertEquals(List.of("t2", "t3", "t1", "t4"), new FcfsPolicy(0).choose(s, 4));
    }

    @Test
    void fcfsAgingForcesAWaitingTaskIn() {
        // t1's queue always looks older; with X = 2, t2 (runnable, never chosen) is forced in on cycle 3.
        FcfsPolicy fcfs = new FcfsPolicy(2);
        List<TaskInfo> tasks = List.of(source("t1", "q1"), source("t2", "q2"));
        List<String> last = null;
        for (int c = 0; c < 3; c++) {
            SchedulerState s = Fx.state(T0 + 100L * c, 100, 0.1, tasks,
                    snap("t1").queued(5).arrival(T0 - 10_000), snap("t2").queued(5).arrival(T0 + 100L * c));
            last = fcfs.choose(s, 1);
            if (c < 2) {
                assertEquals(List.of("t1"), last);
            }
        }
        assertEquals(List.of("t2"), last);
    }

    // ------------------------------------------------------------------ hr

    @Test
    void globalOutputRateByHand() {
        // path src (1000 ns, S = 0.1) → map (500 ns, S = 2) → sink (200 ns, sink)
        // GS = 0.1·2·1 = 0.2; GC = 1000 + 0.1·500 + 0.2·200 = 1090 → 0.2/1090 = 1.8349e-4 per ns
        assertEquals(0.2 / 1090, HighestRatePolicy.globalOutputRate(new double[] {1000, 500, 200},
                new double[] {0.1, 2, 0}, new boolean[] {false, false, true}), 1e-15);
        assertEquals(Double.POSITIVE_INFINITY, HighestRatePolicy.globalOutputRate(new double[] {0},
                new double[] {1}, new boolean[] {false}));
    }

    @Test
    void highestRatePicksTheHighestSelectivityOverCostPath() {
        // p1: src (1000 ns, S = 1) → sink (1000 ns): rate = 1 / 2000 = 5.0e-4
        // p2: src (1000 ns, S = 0.1) → sink (1000 ns): rate = 0.1 / (1000 + 100) = 9.1e-5
        // p3: src (400 ns, S = 0.5) → sink (1000 ns): rate = 0.5 / (400 + 500) = 5.6e-4  ← highest
        List<TaskInfo> tasks = List.of(source("p1-src", "p1"), sink("p1-sink", "p1", 1),
                source("p2-src", "p2"), sink("p2-sink", "p2", 1),
                source("p3-src", "p3"), sink("p3-sink", "p3", 1));
        SchedulerState s = Fx.state(T0, 100, 0.1, tasks,
                snap("p1-src").queued(10).cost(1000).sel(1), snap("p1-sink").cost(1000).sel(0),
                snap("p2-src").queued(10).cost(1000).sel(0.1), snap("p2-sink").cost(1000).sel(0),
                snap("p3-src").queued(10).cost(400).sel(0.5), snap("p3-sink").cost(1000).sel(0));
        HighestRatePolicy hr = new HighestRatePolicy(0);
        // C counts pipelines: choosing p3's source runs p3's whole pipeline (downstream first)
        assertEquals(List.of("p3-sink", "p3-src"), hr.choose(s, 1));
        assertEquals(List.of("p3-sink", "p3-src", "p1-sink", "p1-src", "p2-sink", "p2-src"),
                new HighestRatePolicy(0).choose(s, 3));
    }

    // ------------------------------------------------------------------ sbox

    private static List<TaskInfo> windowQuery(String q) {
        return List.of(source(q + "-src", q), window(q + "-win", q, 1));
    }

    @Test
    void streamBoxSticksToTheClosestDeadlineUntilItsWatermarkPasses() {
        StreamBoxPolicy sbox = new StreamBoxPolicy(0);
        List<TaskInfo> ab = new ArrayList<>(windowQuery("A"));
        ab.addAll(windowQuery("B"));
        // cycle 1: A's deadline (T0+5000) is closer than B's (T0+6000)
        SchedulerState c1 = Fx.state(T0, 100, 0.1, ab,
                snap("A-src").queued(5), snap("A-win").queued(5).wm(T0 - 1000).deadline(T0 + 5000),
                snap("B-src").queued(5), snap("B-win").queued(5).wm(T0 - 1000).deadline(T0 + 6000));
        assertEquals(List.of("A-win", "A-src"), sbox.choose(c1, 1));
        assertEquals("A", sbox.currentQuery());

        // cycle 2: a query C with an even closer deadline appears, A's watermark has not passed 5000 yet
        List<TaskInfo> abc = new ArrayList<>(ab);
        abc.addAll(windowQuery("C"));
        SchedulerState c2 = Fx.state(T0 + 100, 100, 0.1, abc,
                snap("A-src").queued(5), snap("A-win").queued(5).wm(T0 + 4999).deadline(T0 + 5000),
                snap("B-src").queued(5), snap("B-win").queued(5).wm(T0 - 1000).deadline(T0 + 6000),
                snap("C-src").queued(5), snap("C-win").queued(5).wm(T0 - 1000).deadline(T0 + 4500));
        assertEquals(List.of("A-win", "A-src", "C-win", "C-src"), sbox.choose(c2, 2), "sticks to A");

        // cycle 3: A's window watermark reached its deadline → the closest deadline now is C's
        SchedulerState c3 = Fx.state(T0 + 200, 100, 0.1, abc,
                snap("A-src").queued(5), snap("A-win").queued(5).wm(T0 + 5000).deadline(T0 + 8000),
                snap("B-src").queued(5), snap("B-win").queued(5).wm(T0 - 1000).deadline(T0 + 6000),
                snap("C-src").queued(5), snap("C-win").queued(5).wm(T0 - 1000).deadline(T0 + 4500));
        assertEquals(List.of("C-win", "C-src", "B-win", "B-src", "A-win", "A-src"), sbox.choose(c3, 3));
        assertEquals("C", sbox.currentQuery());
    }

    @Test
    void idleSlotsAreFilledWithIdleTasks() {
        // a pipeline whose downstream has no input yet: it is resumed anyway when a slot is free
        List<TaskInfo> tasks = List.of(source("s", "q"), op("m", "q", 1), window("w", "q", 2));
        SchedulerState s = Fx.state(T0, 100, 0.1, tasks,
                snap("s").queued(5), snap("m"), snap("w").deadline(T0 + 1000).wm(T0 - 100));
        assertEquals(List.of("w", "m", "s"), new StreamBoxPolicy(0).choose(s, 1));
    }
}
