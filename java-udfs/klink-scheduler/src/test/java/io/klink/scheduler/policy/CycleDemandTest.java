package io.klink.scheduler.policy;

import static io.klink.scheduler.policy.Fx.T0;
import static io.klink.scheduler.policy.Fx.queries;
import static io.klink.scheduler.policy.Fx.snap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
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
}
