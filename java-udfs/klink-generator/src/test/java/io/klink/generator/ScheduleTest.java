package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class ScheduleTest {

    private static final long START = 1_700_000_000_000L;

    @Test
    void eventTimeOfEventKIsStartPlusKTimes1000OverRate() {
        Schedule s = new Schedule(1000);
        assertEquals(START, s.eventTimeMs(START, 0));
        assertEquals(START + 1, s.eventTimeMs(START, 1));
        assertEquals(START + 29_999, s.eventTimeMs(START, 29_999));

        Schedule three = new Schedule(3);
        assertEquals(0, three.offsetNanos(0));
        assertEquals(333_333_333L, three.offsetNanos(1));
        assertEquals(666_666_666L, three.offsetNanos(2));
        assertEquals(1_000_000_000L, three.offsetNanos(3));
        assertEquals(START + 333, three.eventTimeMs(START, 1));
        assertEquals(START + 666, three.eventTimeMs(START, 2));
        assertEquals(START + 1000, three.eventTimeMs(START, 3));

        Schedule fast = new Schedule(500_000);
        assertEquals(2_000, fast.offsetNanos(1));
        assertEquals(START, fast.eventTimeMs(START, 499));
        assertEquals(START + 1, fast.eventTimeMs(START, 500));
    }

    @Test
    void noDriftOverLongRunsAndNoOverflow() {
        long[] rates = {7, 999, 1000, 333_333, 500_000, 1_000_000_000L};
        for (long rate : rates) {
            Schedule s = new Schedule(rate);
            long centuryOfEvents = rate * 86_400L * 365 * 100; // offsets up to 100 years still fit in ns
            for (long k : new long[]{1, 12_345, 1_000_000_007L, centuryOfEvents - 1, centuryOfEvents + rate - 1}) {
                BigInteger exact = BigInteger.valueOf(k).multiply(BigInteger.valueOf(1_000_000_000L))
                        .divide(BigInteger.valueOf(rate));
                assertEquals(exact.longValueExact(), s.offsetNanos(k), "rate " + rate + " k " + k);
                BigInteger exactMs = BigInteger.valueOf(k).multiply(BigInteger.valueOf(1000))
                        .divide(BigInteger.valueOf(rate));
                assertEquals(exactMs.longValueExact(), s.eventTimeMs(0, k), "ms, rate " + rate + " k " + k);
            }
        }
    }

    @Test
    void eventsPerTopicCountsOffsetsInsideTheDuration() {
        assertEquals(30_000, new Schedule(1000).eventsPerTopic(30_000));
        assertEquals(3, new Schedule(3).eventsPerTopic(1000));
        assertEquals(1, new Schedule(3).eventsPerTopic(1));
        assertEquals(4, new Schedule(3).eventsPerTopic(1001));
        assertEquals(5_000_000, new Schedule(500_000).eventsPerTopic(10_000));
        // the last counted event lies inside the duration, the next one does not
        Schedule s = new Schedule(7);
        long n = s.eventsPerTopic(2500);
        assertEquals(true, s.offsetNanos(n - 1) < 2_500_000_000L);
        assertEquals(true, s.offsetNanos(n) >= 2_500_000_000L);
    }

    @Test
    void rejectsNonPositiveRates() {
        assertThrows(IllegalArgumentException.class, () -> new Schedule(0));
        assertThrows(IllegalArgumentException.class, () -> new Schedule(-5));
    }
}
