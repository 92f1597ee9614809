package io.klink.workloads.rides;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When the combiner's instances emit, and how they switch to the controller's λ in step (§3.1, §3.2). */
class EmissionClockTest {

    @Test
    void emissionsAreAlignedToTheWallClockSoEveryInstanceEmitsAtTheSameInstants() {
        assertEquals(1000, EmissionClock.nextAligned(999, 500));
        assertEquals(1500, EmissionClock.nextAligned(1000, 500));
        assertEquals(EmissionClock.nextAligned(1251, 250), EmissionClock.nextAligned(1499, 250));
    }

    @Test
    void aNewIntervalAppliesFromItsSwitchInstantNotWhenItArrives() {
        EmissionClock clock = new EmissionClock(500, 10_000);  // next emission at 10 500
        Interval shorter = Interval.decided(1, 100, 10_050);  // from 10 150
        clock.take(shorter, 10_060);
        assertEquals(500, clock.intervalMs());
        assertFalse(clock.due(10_200));
        clock.take(shorter, 10_160);
        assertEquals(100, clock.intervalMs());
        assertTrue(clock.due(10_200));  // the first multiple of 100 after 10 150, not 10 500
    }

    @Test
    void instancesThatHearOfANewIntervalAtDifferentTicksStillEmitAtTheSameInstants() {
        Interval interval = new Interval(1, 60, 20_010);
        List<Long> first = emissions(new EmissionClock(500, 20_000), interval, 20_000, 20_300);
        List<Long> second = emissions(new EmissionClock(500, 20_007), interval, 20_007, 20_300);
        assertEquals(List.of(20_040L, 20_100L, 20_160L, 20_220L, 20_280L), first);
        assertEquals(first, second);
    }

    @Test
    void eachPeriodIsTakenOnceAndARestartedControllerIsFollowedFromItsFirstPeriod() {
        EmissionClock clock = new EmissionClock(500, 0);
        clock.take(new Interval(7, 200, 0), 1);
        clock.take(new Interval(7, 200, 0), 2);
        assertEquals(200, clock.intervalMs());
        clock.take(new Interval(1, 40, 0), 3);  // the controller's task restarted: its periods count from 1
        assertEquals(40, clock.intervalMs());
        clock.take(null, 4);
        assertEquals(40, clock.intervalMs());
    }

    /** The instants a clock ticking every 20 ms from {@code startMs} emits for, until {@code endMs}. */
    private static List<Long> emissions(EmissionClock clock, Interval interval, long startMs, long endMs) {
        List<Long> instants = new ArrayList<>();
        for (long now = startMs; now <= endMs; now += AdaptiveCombiner.TICK_MS) {
            clock.take(interval, now);
            if (clock.due(now)) {
                instants.add(clock.nextEmitAt());
                clock.emitted(now);
            }
        }
        return instants;
    }
}
