package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulerState;
import io.klink.scheduler.SchedulingPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static io.klink.scheduler.policy.Fx.snap;
import static io.klink.scheduler.policy.Fx.source;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PoliciesTest {

    @Test
    void createsEveryNamedPolicy() {
        for (String name : Policies.NAMES) {
            SchedulingPolicy p = Policies.create(name, Map.of());
            assertEquals(name, p.name());
            assertEquals(name.equals("default"), p.neverPauses());
        }
        assertInstanceOf(KlinkPolicy.class, Policies.create(" KLINK-NoMM ", Map.of()));
    }

    @Test
    void unknownNameListsTheValidOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Policies.create("edf", Map.of()));
        assertTrue(e.getMessage().contains("'edf'"), e.getMessage());
        for (String name : Policies.NAMES) {
            assertTrue(e.getMessage().contains(name), e.getMessage());
        }
    }

    @ParameterizedTest
    @CsvSource({
            "r, 0", "r, -5", "h, 0", "f, 0", "f, 1", "f, 1.5", "b, 0", "b, 1.01", "C, 0",
            "quantum, 0", "age, -1", "mmcycles, 0", "r, abc", "f, x"})
    void outOfRangeParameterIsNamed(String key, String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Policies.create("klink", Map.of(key, value)));
        assertTrue(e.getMessage().startsWith("parameter " + key + " "), e.getMessage());
        assertTrue(e.getMessage().contains(value), e.getMessage());
    }

    @Test
    void defaultsAndBoundaryValues() {
        PolicyConfig d = PolicyConfig.defaults();
        assertEquals(120, d.cycleMs());
        assertEquals(400, d.history());
        assertEquals(0.95, d.confidence());
        assertEquals(0.8, d.memoryBound());
        assertEquals(Runtime.getRuntime().availableProcessors(), d.cores());
        assertEquals(1, d.quantum());
        assertEquals(0, d.agingCycles(), "no aging, as in the paper");
        assertEquals(Runtime.getRuntime().availableProcessors(), d.cpuCores());
        assertEquals(25, d.memoryCycles());
        PolicyConfig c = PolicyConfig.parse(Map.of("b", "1", "h", "1", "C", "1", "age", "0", "statusDir", "/tmp/x",
                "cpu", "0.4"));
        assertEquals(0.4, c.cpuCores());
        assertEquals(1.0, c.memoryBound());
        assertEquals(0, c.agingCycles());
    }

    @Test
    void everyDeclaredKeyIsParsedAndEveryPolicyParameterIsDeclared() {
        for (String key : PolicyConfig.DEFAULTS.keySet()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> PolicyConfig.parse(Map.of(key, "not-a-value")));
            assertTrue(e.getMessage().startsWith("parameter " + key + " "), e.getMessage());
        }
        for (Policies.Policy p : Policies.ALL) {
            assertTrue(PolicyConfig.DEFAULTS.keySet().containsAll(p.parameters()), p.name());
        }
        assertTrue(PolicyConfig.DEFAULTS.keySet().containsAll(Policies.SCHEDULER_PARAMETERS));
    }

    @Test
    void declaredDefaultsAreTheParsedOnes() {
        PolicyConfig d = PolicyConfig.defaults();
        assertEquals(d.cycleMs(), PolicyConfig.DEFAULTS.get("r"));
        assertEquals(d.history(), PolicyConfig.DEFAULTS.get("h"));
        assertEquals(d.confidence(), PolicyConfig.DEFAULTS.get("f"));
        assertEquals(d.memoryBound(), PolicyConfig.DEFAULTS.get("b"));
        assertEquals(d.quantum(), PolicyConfig.DEFAULTS.get("quantum"));
        assertEquals(d.agingCycles(), PolicyConfig.DEFAULTS.get("age"));
        assertEquals(d.memoryCycles(), PolicyConfig.DEFAULTS.get("mmcycles"));
        assertEquals(d.strictSlack(), PolicyConfig.DEFAULTS.get("strict"));
        assertEquals(d.fillCycle(), PolicyConfig.DEFAULTS.get("fill"));
    }

    @Test
    void defaultPolicyReturnsEveryTaskAndNeverPauses() {
        SchedulerState s = Fx.state(Fx.T0, 120, 0.99,
                List.of(source("a", "q1"), source("b", "q2"), source("c", "q3")),
                snap("a").queued(5), snap("b"), snap("c").queued(1));
        SchedulingPolicy p = Policies.create("default", Map.of());
        assertEquals(List.of("a", "b", "c"), p.choose(s, 1));
        assertTrue(p.neverPauses());
        assertFalse(Policies.create("rr", Map.of()).neverPauses());
    }
}
