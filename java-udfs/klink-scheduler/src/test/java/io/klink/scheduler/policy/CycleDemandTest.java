package io.klink.scheduler.policy;

import static io.klink.scheduler.policy.Fx.T0;
import static io.klink.scheduler.policy.Fx.queries;
import static io.klink.scheduler.policy.Fx.snap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.klink.scheduler.SchedulerState;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CycleDemandTest {

    /** A: 30 records of 1 ms queued at its window; B: 50 of 1 ms. */
    private static Topology twoQueries() {
        return Topology.of(Fx.state(T0, 100, 0.1, queries("A", "B"),
                snap("A-src").wm(T0), snap("A-win").queued(30).cost(1e6).deadline(T0 + 1000).wm(T0),
                snap("B-src").wm(T0), snap("B-win").queued(50).cost(1e6).deadline(T0 + 1000).wm(T0)));
    }

    @Test
    void demandIsTheDrainTimeOfEveryQueue() {
        Topology topo = twoQueries();
        assertEquals(30, CycleDemand.unitMs(topo, "A"), 1e-9);
        assertEquals(80, CycleDemand.totalMs(topo), 1e-9);
    }

    @Test
    void theBudgetCountsTheCoresTheTaskManagerReallyHas() {
        PolicyConfig oneCore = PolicyConfig.parse(Map.of("cpu", "1"));
        assertEquals(100, CycleDemand.budgetMs(100, 4, oneCore), 1e-9);
        assertEquals(200, CycleDemand.budgetMs(100, 2, PolicyConfig.parse(Map.of("cpu", "8"))), 1e-9);
        assertTrue(CycleDemand.light(twoQueries(), 80));
        assertFalse(CycleDemand.light(twoQueries(), 79.9));
    }

    /** The two queries of {@link #twoQueries}, with B's window forwarded from another node (distributed Klink, §4). */
    private static SchedulerState bWindowRemote() {
        SchedulerState one = twoQueries().state();
        return new SchedulerState(one.nowMs(), one.cycleMs(), one.tasks(), one.snapshots(), one.memoryUsedFraction(),
                Set.of("B-win"));
    }

    @Test
    void workOnAnotherNodeCostsThisNodeNothingButStillRanksItsPipeline() {
        Topology topo = Topology.of(bWindowRemote());
        assertEquals(0, CycleDemand.unitMs(topo, "B"), 1e-9);
        assertEquals(30, CycleDemand.totalMs(topo), 1e-9);
        assertEquals(50, Topology.drainCostMs(topo.path("B", "B")), 1e-9);  // the slack still sees B's whole path
    }

    @Test
    void aPipelineWhoseOnlyWorkIsOnAnotherNodeTakesNoSlotHere() {
        Topology topo = Topology.of(bWindowRemote());
        Selection sel = new Selection(1, topo);
        sel.addRunnable(topo.state(), List.of("B-win", "A-win"));
        assertEquals(Set.of("A-src", "A-win"), Set.copyOf(sel.toList()));
    }
}
