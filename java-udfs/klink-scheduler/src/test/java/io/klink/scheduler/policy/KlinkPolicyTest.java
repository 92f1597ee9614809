package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.TaskInfo;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.klink.scheduler.policy.Fx.T0;
import static io.klink.scheduler.policy.Fx.klink;
import static io.klink.scheduler.policy.Fx.join;
import static io.klink.scheduler.policy.Fx.op;
import static io.klink.scheduler.policy.Fx.queries;
import static io.klink.scheduler.policy.Fx.query;
import static io.klink.scheduler.policy.Fx.snap;
import static io.klink.scheduler.policy.Fx.source;
import static io.klink.scheduler.policy.Fx.window;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KlinkPolicyTest {

    private static final double Z95 = 1.959963985;

    // ------------------------------------------------------------------ thesis Fig. 1.1

    /** t = 0, r = 1 s: W1 (7 s window) and W2 (6 s window) each hold 4 events of {@code costNs}. */
    private static SchedulerState fourEventsEach(double costNs) {
        return Fx.state(T0, 1000, 0.1, queries("W1", "W2"),
                snap("W1-src").wm(T0), snap("W1-win").queued(4).cost(costNs).deadline(T0 + 7000).wm(T0),
                snap("W2-src").wm(T0), snap("W2-win").queued(4).cost(costNs).deadline(T0 + 6000).wm(T0));
    }

    @Test
    void fig11TighterSlackRunsFirst() {
        // Thesis Fig. 1.1: W1 aggregates a 7 s window, W2 a 6 s window; every event costs 1 s.
        // Cycle r = 1 s. Before any SWM was seen the estimator centres w on the deadline with σ = r.
        //
        // (a) t = 0, both queues hold 4 events (cost 4 s each): sl(W2) ≈ 6 + ½ − 4 < sl(W1) ≈ 7 + ½ − 4,
        //     so the query whose deadline is closer runs: W2.
        KlinkPolicy a = klink(1000, Map.of());
        assertEquals(List.of("W2-win", "W2-src"), a.choose(fourEventsEach(1e9), 1)); // one pipeline, all its tasks
        assertTrue(a.lastSlacks().get("W2") < a.lastSlacks().get("W1"));

        // (b) t = 2 s: Klink has processed two of W2's events (2 left, cost 2 s) while W1 holds 5 (cost 5 s).
        //     Despite W2's closer deadline, W1 now has the smaller slack (≈ 7 − 2 − 5 = 0 vs 6 − 2 − 2 = 2):
        //     "the small difference in their deadlines combined with the longer queue of W1 leads Klink
        //     to schedule ... W1".
        KlinkPolicy b = klink(1000, Map.of());
        SchedulerState s2 = Fx.state(T0 + 2000, 1000, 0.1, queries("W1", "W2"),
                snap("W1-src").wm(T0 + 2000), snap("W1-win").queued(5).cost(1e9).deadline(T0 + 7000).wm(T0 + 2000),
                snap("W2-src").wm(T0 + 2000), snap("W2-win").queued(2).cost(1e9).deadline(T0 + 6000).wm(T0 + 2000));
        assertEquals(List.of("W1-win", "W1-src"), b.choose(s2, 1));
        // W1's slack is exactly Eq. 8 with mean = deadline, σ = r, cost = 5 s (hand-checkable via KlinkMath)
        double mean = T0 + 7000;
        double expected = KlinkMath.expectedSlack(T0 + 2000, mean, 1000, mean - Z95 * 1000, mean + Z95 * 1000, 1000, 5000);
        assertEquals(expected, b.lastSlacks().get("W1"), 1e-6);
    }

    @Test
    void atLightLoadNothingIsPausedAndSlackOrderStartsWhenQueuesExceedACycle() {
        // r = 1 s, C = 1: 4 + 4 queued events of 1 ms each drain in 8 ms ≤ r · C, so every task runs
        KlinkPolicy light = klink(1000, Map.of());
        assertEquals(4, light.choose(fourEventsEach(1e6), 1).size());
        assertTrue(light.explainLastChoice().startsWith("light:W1="), light.explainLastChoice());
        // the same queues at 1 s per event (8 s of work) exceed the cycle: one pipeline, least slack (Fig. 1.1 a)
        KlinkPolicy loaded = klink(1000, Map.of());
        assertEquals(List.of("W2-win", "W2-src"), loaded.choose(fourEventsEach(1e9), 1));
        assertFalse(loaded.explainLastChoice().startsWith("light:"));
        // capacity is the CPU the TaskManager really has: 8 ms of work exceed r · 0.004 core = 4 ms
        KlinkPolicy capped = klink(1000, Map.of("cpu", "0.004"));
        assertEquals(List.of("W2-win", "W2-src"), capped.choose(fourEventsEach(1e6), 1));
        assertFalse(capped.explainLastChoice().startsWith("light:"));
        // strict: the paper's selection even at light load
        KlinkPolicy strict = klink(1000, Map.of("strict", "true"));
        assertEquals(List.of("W2-win", "W2-src"), strict.choose(fourEventsEach(1e6), 1));
    }

    // ------------------------------------------------------------------ joins

    private static List<TaskInfo> joinTopology() {
        List<TaskInfo> t = new ArrayList<>();
        t.add(source("A-src", "A"));
        t.add(op("A-map", "A", 1));
        t.add(source("B-src", "B"));
        t.add(op("B-map", "B", 1));
        t.add(join("J-join", "J", 2, "A", "B"));
        t.addAll(query("Q"));
        return t;
    }

    private static SchedulerState joinState(long aQueued) {
        // J joins A and B, deadline T0 + 5000; Q is an ordinary query with deadline T0 + 4000 and 1 s of work.
        // Every record costs 1 ms. r = 100 ms.
        return Fx.state(T0, 100, 0.1, joinTopology(),
                snap("A-src").wm(T0 - 10), snap("A-map").queued(aQueued).cost(1e6),
                snap("B-src").wm(T0 - 10), snap("B-map").queued(100).cost(1e6),
                snap("J-join").deadline(T0 + 5000).wm(T0 - 10),
                snap("Q-src").wm(T0 - 10), snap("Q-win").queued(1000).cost(1e6).deadline(T0 + 4000).wm(T0 - 10));
    }

    @Test
    void joinWithALaggingInputTakesTheMinimumSlack() {
        // A's input holds 3 s of work, B's 0.1 s: sl(A→J) ≈ 5 − 3 = 2 s, sl(B→J) ≈ 4.9 s, sl(Q) ≈ 4 − 1 = 3 s.
        // J's slack is the minimum (A's), which beats Q: J runs, its lagging input A first.
        KlinkPolicy k = klink(100, Map.of());
        List<String> chosen = k.choose(joinState(3000), 1);
        assertEquals(List.of("J-join", "A-map", "A-src", "B-map", "B-src"), chosen);
        double mean = T0 + 5000;
        double slackA = KlinkMath.expectedSlack(T0, mean, 100, mean - Z95 * 100, mean + Z95 * 100, 100, 3000);
        double slackB = KlinkMath.expectedSlack(T0, mean, 100, mean - Z95 * 100, mean + Z95 * 100, 100, 100);
        assertEquals(KlinkMath.joinSlack(slackA, slackB), k.lastSlacks().get("J"), 1e-6);
        assertEquals(slackA, k.lastSlacks().get("J"), 1e-6);
        assertTrue(k.lastSlacks().get("J") < k.lastSlacks().get("Q"));
        assertNotNull(k.estimator("A", "J"));
        assertNotNull(k.estimator("B", "J"));

        // Without A's backlog both inputs are loose (≈ 4.9 s) and Q (3 s) goes first.
        KlinkPolicy k2 = klink(100, Map.of());
        assertEquals("Q-win", k2.choose(joinState(100), 2).get(0));
    }

    // ------------------------------------------------------------------ overdue and ingested SWMs

    @Test
    void overdueAndAlreadyIngestedSwmsUseEq1() {
        // X: deadline long past and its SWM not seen (now > t_max): slack = −cost = −200 ms.
        // Y: SWM already ingested (source watermark ≥ deadline), 50 ms of work: slack = (w − now) − cost
        //    with w = now (ingestion time unknown, first sighting) = −50 ms.
        // Z: deadline 10 s ahead: positive slack.
        KlinkPolicy k = klink(100, Map.of());
        SchedulerState s = Fx.state(T0, 100, 0.1, queries("X", "Y", "Z"),
                snap("X-src").wm(T0 - 20_000), snap("X-win").queued(200).cost(1e6).deadline(T0 - 5000).wm(T0 - 20_000),
                snap("Y-src").wm(T0 + 10), snap("Y-win").queued(50).cost(1e6).deadline(T0).wm(T0 - 500),
                snap("Z-src").wm(T0), snap("Z-win").queued(50).cost(1e6).deadline(T0 + 10_000).wm(T0));
        assertEquals(List.of("X-win", "X-src", "Y-win", "Y-src", "Z-win", "Z-src"), k.choose(s, 3));
        assertEquals(-200.0, k.lastSlacks().get("X"), 1e-9);
        assertEquals(-50.0, k.lastSlacks().get("Y"), 1e-9);
        assertTrue(k.lastSlacks().get("Z") > 9000);
    }

    // ------------------------------------------------------------------ memory management

    private static List<TaskInfo> memoryTopology() {
        return List.of(
                source("F-src", "F"), op("F-filter", "F", 1), window("F-win", "F", 2),
                source("S-src", "S"), op("S-map", "S", 1), window("S-win", "S", 2));
    }

    private static SchedulerState memoryState(long now, double memory) {
        // F: filter drops 3 of 4 records (1000 queued, 1 µs each) → p = 1000·(1 − 0.25) = 750.
        // S: a map with selectivity 1 (p = 0) and a much closer deadline → least slack.
        return Fx.state(now, 100, memory, memoryTopology(),
                snap("F-src").queued(10).wm(now), snap("F-filter").queued(1000).cost(1e6).sel(0.25),
                snap("F-win").sel(1).deadline(now + 60_000).wm(now),
                snap("S-src").queued(10).wm(now), snap("S-map").queued(500).cost(1e6).sel(1),
                snap("S-win").sel(1).deadline(now + 1_000).wm(now));
    }

    @Test
    void memoryManagementTriggersAtBAndExitsBelowIt() {
        KlinkPolicy k = klink(100, Map.of("b", "0.8"));
        assertEquals(List.of("S-win", "S-map", "S-src"), k.choose(memoryState(T0, 0.79), 1), "below b: least slack");
        assertFalse(k.inMemoryMode());
        List<String> mm = k.choose(memoryState(T0 + 100, 0.8), 3);
        assertTrue(k.inMemoryMode(), "memory ≥ b triggers");
        assertEquals("F-filter", mm.get(0), "the pipeline that drops the most queued events runs first");
        assertTrue(mm.stream().noneMatch(id -> id.endsWith("-src")), "no ingestion while memory is short: " + mm);
        k.choose(memoryState(T0 + 200, 0.79), 1);
        assertFalse(k.inMemoryMode(), "memory < b ends it");
    }

    @Test
    void memoryModeLastsAtMostKCyclesThenYieldsKCycles() {
        KlinkPolicy k = klink(100, Map.of("b", "0.8", "mmcycles", "2"));
        List<Boolean> modes = new ArrayList<>();
        for (int c = 0; c < 7; c++) {
            k.choose(memoryState(T0 + 100L * c, 0.95), 1);
            modes.add(k.inMemoryMode());
        }
        assertEquals(List.of(true, true, false, false, true, true, false), modes);
    }

    @Test
    void klinkWithoutMemoryManagementKeepsSlackOrder() {
        KlinkPolicy k = (KlinkPolicy) Policies.create("klink-nomm", Map.of("r", "100", "age", "0"));
        assertEquals(List.of("S-win", "S-map", "S-src"), k.choose(memoryState(T0, 0.99), 1));
        assertFalse(k.inMemoryMode());
    }

    // ------------------------------------------------------------------ queries without a deadline

    /** A query whose window has seen no data yet (no deadline) beside A, whose queued work costs costMs. */
    private static List<String> chooseBesideQueryWithoutDeadline(KlinkPolicy k, long now, long costMs) {
        List<TaskInfo> tasks = List.of(source("A-src", "A"), window("A-win", "A", 1),
                source("B-src", "B"), window("B-win", "B", 1));
        return k.choose(Fx.state(now, 100, 0.1, tasks,
                snap("A-src").wm(now), snap("A-win").queued(costMs).cost(1e6).deadline(now + 500).wm(now),
                snap("B-src").queued(100).cost(1e6), snap("B-win")), 1);
    }

    @Test
    void aQueryWithoutDeadlineRunsWhenNoOtherIsOverdue() {
        // Without aging: B has never reported a deadline (slack 0, due now). A, 100 ms of work before a
        // deadline 0.5 s away, is not due yet (slack > 0): B runs and so gets to see data and report one.
        KlinkPolicy k = klink(100, Map.of());
        assertEquals(List.of("B-win", "B-src"), chooseBesideQueryWithoutDeadline(k, T0, 100));
        assertEquals(KlinkPolicy.UNKNOWN_SLACK, k.lastSlacks().get("B"));
        assertTrue(k.explainLastChoice().contains("B=0"), k.explainLastChoice());
    }

    @Test
    void anOverdueQueryRunsBeforeOneWithoutDeadline() {
        // A has 1 s of work before a deadline 0.5 s away (slack < 0): it goes before B (slack 0).
        KlinkPolicy k = klink(100, Map.of());
        assertEquals(List.of("A-win", "A-src"), chooseBesideQueryWithoutDeadline(k, T0, 1000));
        assertTrue(k.lastSlacks().get("A") < KlinkPolicy.UNKNOWN_SLACK);
    }

    // ------------------------------------------------------------------ fill (a deviation)

    /** Four pipelines whose slack grows A < B < Cq < D, with 10, 50, 80 and 100 ms of queued work. */
    private static List<String> chooseFourPipelines(KlinkPolicy k) {
        List<TaskInfo> tasks = queries("A", "B", "Cq", "D");
        long now = T0;
        return k.choose(Fx.state(now, 100, 0.1, tasks,
                snap("A-src").wm(now), snap("A-win").queued(10).cost(1e6).deadline(now + 200).wm(now),
                snap("B-src").wm(now), snap("B-win").queued(50).cost(1e6).deadline(now + 500).wm(now),
                snap("Cq-src").wm(now), snap("Cq-win").queued(80).cost(1e6).deadline(now + 900).wm(now),
                snap("D-src").wm(now), snap("D-win").queued(100).cost(1e6).deadline(now + 2000).wm(now)), 1);
    }

    @Test
    void withFillPipelinesJoinInSlackOrderUntilTheirWorkCoversACycle() {
        // r = 100 ms on one core, C = 1: 240 ms queued in all, so not light. The paper's selection runs A
        // alone (10 ms of work: the core would idle 90 ms of the cycle); fill adds B (60 ms) and Cq (140 ms,
        // now past the cycle) and leaves D paused.
        assertEquals(List.of("A-win", "A-src"), chooseFourPipelines(klink(100, Map.of("cpu", "1"))));
        assertEquals(List.of("A-win", "A-src", "B-win", "B-src", "Cq-win", "Cq-src"),
                chooseFourPipelines(klink(100, Map.of("cpu", "1", "fill", "true"))));
    }

    // ------------------------------------------------------------------ aging

    @Test
    void agingForcesAStarvedTaskIn() {
        // A is always overdue (1 s of queued work, deadline in 0.5 s: slack < 0) and so ranks before B, which
        // has input but no deadline (slack 0). With X = 3, B's task is forced in on the 4th cycle.
        KlinkPolicy k = klink(100, Map.of("age", "3"));
        List<TaskInfo> tasks = List.of(source("A-src", "A"), window("A-win", "A", 1), source("B-src", "B"));
        List<List<String>> got = new ArrayList<>();
        List<Boolean> aged = new ArrayList<>();
        for (int c = 0; c < 5; c++) {
            long now = T0 + 100L * c;
            got.add(k.choose(Fx.state(now, 100, 0.1, tasks,
                    snap("A-src").wm(now), snap("A-win").queued(1000).cost(1e6).deadline(now + 500).wm(now),
                    snap("B-src").queued(100).cost(1e6)), 1));
            aged.add(k.explainLastChoice().contains("aged:"));
        }
        List<String> a = List.of("A-win", "A-src");
        assertEquals(List.of(a, a, a, List.of("B-src"), a), got);
        assertEquals(List.of(false, false, false, true, false), aged, "summary.json counts aging cycles by it");
    }
}
