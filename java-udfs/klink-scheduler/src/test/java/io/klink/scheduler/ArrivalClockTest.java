package io.klink.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ArrivalClockTest {

    @Test
    void emptyQueueHasNoArrival() {
        ArrivalClock clock = new ArrivalClock();
        assertEquals(TaskSnapshot.UNKNOWN_ARRIVAL, clock.observe(1000, 50, 0));
    }

    @Test
    void oldestQueuedRecordIsInterpolatedWithinTheIntervalItArrivedIn() {
        ArrivalClock clock = new ArrivalClock();
        clock.observe(0, 0, 0);       // arrivals 0
        clock.observe(100, 0, 100);   // arrivals 100: records 1..100 arrived in (0, 100]
        // nothing consumed: the oldest is record 1, just after t = 0
        assertEquals(1, clock.observe(200, 0, 200));
        // 150 consumed: the oldest is record 151, half-way through (100, 200]
        assertEquals(151, clock.observe(300, 150, 150));
    }

    @Test
    void aTaskThatFallsBehindKeepsItsOldestArrivalWhileNewRecordsQueue() {
        ArrivalClock clock = new ArrivalClock();
        clock.observe(0, 0, 0);
        clock.observe(100, 0, 10);
        long first = clock.observe(200, 0, 1000);
        long later = clock.observe(300, 0, 5000); // paused: more arrives, none consumed
        assertEquals(first, later);
        assertEquals(10, first);
    }

    @Test
    void recordsQueuedBeforeTheFirstObservationArriveAtTheEarliestTimeKnown() {
        ArrivalClock clock = new ArrivalClock();
        assertEquals(500, clock.observe(500, 0, 30));
        assertEquals(500, clock.observe(600, 10, 20));
    }

    @Test
    void olderTaskRanksFirstAcrossTwoClocks() {
        ArrivalClock busy = new ArrivalClock();
        ArrivalClock fresh = new ArrivalClock();
        for (long t = 0; t <= 1000; t += 100) {
            busy.observe(t, 0, t);                 // queued since t = 0
            fresh.observe(t, t, t >= 900 ? 5 : 0); // keeps up until t = 900
        }
        assertEquals(true, busy.observe(1100, 0, 1100) < fresh.observe(1100, 1100, 10));
    }

    @Test
    void aRestartedCounterStartsAFreshHistory() {
        ArrivalClock clock = new ArrivalClock();
        clock.observe(0, 1000, 0);
        clock.observe(100, 1000, 50);
        assertEquals(200, clock.observe(200, 0, 5)); // new attempt: counters back at 0
    }
}
