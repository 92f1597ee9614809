package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rate schedules: parsing, the time warp, and the generator's per-second counts under them. */
class RateScheduleTest {

    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;

    @Test
    void parsesEachFormToItsCanonicalSpec() {
        assertSame(RateSchedule.STEADY, RateSchedule.parse(" steady ", 1000));
        assertEquals("surge:4x@10s+10s", RateSchedule.parse("surge:4x@10s+10000ms", 30_000).spec());
        assertEquals("surge:2.5x@0+1500ms", RateSchedule.parse("surge:2.5x@0s+1.5s", 30_000).spec());
        assertEquals("ramp:4x", RateSchedule.parse("ramp:4.0x", 30_000).spec());
        assertEquals("bursts:3x@10s+2s", RateSchedule.parse("bursts:3.0x@10000ms+2s", 30_000).spec());
        assertEquals("bursts:0.5x@1500ms+500ms", RateSchedule.parse("bursts:0.5x@1.5s+500ms", 30_000).spec());
        for (Gaps.Kind k : RateSchedule.KINDS) {
            RateSchedule parsed = RateSchedule.parse(k.example(), 60_000);
            assertEquals(parsed.spec(), RateSchedule.parse(parsed.spec(), 60_000).spec(), "canonical is a fixpoint");
        }
    }

    @Test
    void refusesMalformedSchedulesInOneLineNamingTheForm() {
        for (String bad : List.of("", "surge", "surge:4@10s+10s", "surge:4x@10+10s", "surge:4x@10s+0s",
                "surge:0x@1s+1s", "surge:-2x@1s+1s", "surge:nanx@1s+1s", "surge:2000x@1s+1s", "ramp:x", "ramp:4",
                "ramp:4x@1s", "surge:4x@25s+10s", "steady:1", "bursts:3x@10s", "bursts:3x@10+2s", "bursts:3x@10s+0",
                "bursts:3x@2s+2s", "bursts:3x@1s+2s", "bursts:0x@10s+2s", "bursts:1001x@10s+2s")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> RateSchedule.parse(bad, 30_000), bad);
            assertTrue(!e.getMessage().contains("\n") && e.getMessage().contains("rate schedule"), e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RateSchedule.parse("surge:4x@25s+10s", 30_000))
                .getMessage().contains("after the run's 30s"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RateSchedule.parse("bursts:3x@2s+2s", 30_000))
                .getMessage().contains("the period (2s) must be longer than the burst (2s)"));
    }

    @Test
    void surgeMultipliesTheRateInsideItsWindowOnly() {
        RateSchedule surge = RateSchedule.parse("surge:4x@2s+1s", 5_000);
        assertEquals(1.0, surge.multiplier(1999 * MS));
        assertEquals(4.0, surge.multiplier(2 * S));
        assertEquals(1.0, surge.multiplier(3 * S));
        assertEquals(2 * S, surge.toBase(2 * S));
        assertEquals(6 * S, surge.toBase(3 * S), "one second at 4x is four seconds of the base rate");
        assertEquals(8 * S, surge.toBase(5 * S));
        assertEquals(8.0 / 5, surge.meanMultiplier(5_000), 1e-12);
        assertEquals(4.0, surge.peakMultiplier());
        for (long t = 0; t < 6 * S; t += 777_777) {
            assertEquals(t, surge.toReal(surge.toBase(t)), 1.0, "W^-1(W(t)) = t at " + t);
        }
    }

    @Test
    void rampGrowsLinearlyToItsFactorAtTheEndOfTheRun() {
        RateSchedule ramp = RateSchedule.parse("ramp:3x", 10_000);
        assertEquals(1.0, ramp.multiplier(0));
        assertEquals(2.0, ramp.multiplier(5 * S), 1e-12);
        assertEquals(3.0, ramp.multiplier(10 * S), 1e-12);
        assertEquals(3.0, ramp.multiplier(20 * S), 1e-12, "constant after the run");
        assertEquals(20 * S, ramp.toBase(10 * S), "mean multiplier 2 over the run");
        assertEquals(2.0, ramp.meanMultiplier(10_000), 1e-12);
        for (long t = 0; t < 12 * S; t += 999_999) {
            assertEquals(t, ramp.toReal(ramp.toBase(t)), 1.0, "W^-1(W(t)) = t at " + t);
        }
    }

    @Test
    void burstsRepeatTheirWindowEveryPeriodWithWarpAndInverseInO1() {
        RateSchedule bursts = RateSchedule.parse("bursts:3x@10s+2s", 25_000);
        for (long n = 0; n < 4; n++) {
            long p = n * 10 * S;
            assertEquals(3.0, bursts.multiplier(p));
            assertEquals(3.0, bursts.multiplier(p + 2 * S - 1));
            assertEquals(1.0, bursts.multiplier(p + 2 * S));
            assertEquals(1.0, bursts.multiplier(p + 10 * S - 1));
            assertEquals(n * 14 * S, bursts.toBase(p), "each period is 2 s x 3 + 8 s x 1 = 14 s of the base rate");
            assertEquals(n * 14 * S + 6 * S, bursts.toBase(p + 2 * S));
            assertEquals(n * 14 * S + 3 * S, bursts.toBase(p + S));
            assertEquals(p + S, bursts.toReal(n * 14 * S + 3 * S));
            assertEquals(p + 5 * S, bursts.toReal(n * 14 * S + 9 * S));
        }
        assertEquals(37.0 / 25, bursts.meanMultiplier(25_000), 1e-12, "two whole periods, then a whole burst and 3 s");
        assertEquals(17.0 / 11, bursts.meanMultiplier(11_000), 1e-12, "a period, then half of the second burst");
        assertEquals(3.0, bursts.peakMultiplier());
        assertEquals(1.0, RateSchedule.parse("bursts:0.5x@10s+2s", 25_000).peakMultiplier());
        for (long t = 0; t < 45 * S; t += 777_777) {
            assertEquals(t, bursts.toReal(bursts.toBase(t)), 1.0, "W^-1(W(t)) = t at " + t);
        }
        long far = 100_000 * 10 * S + 1500 * MS;
        assertEquals(100_000 * 14 * S + 4500 * MS, bursts.toBase(far), "100 000 periods on, exactly");
        assertEquals(far, bursts.toReal(bursts.toBase(far)), 1.0);
    }

    /** The generator under a surge sends (and schedules) 4x the events a second inside the window, on time. */
    @Test
    void generatorFollowsTheSurgeSecondBySecondAndJudgesLagAgainstIt() {
        long[] expected = {1000, 1000, 4000, 4000, 1000, 1000};
        Generator.Result result = assertPerSecond(RateSchedule.parse("surge:4x@2s+2s", 6_000), 500, expected);
        assertEquals(12_000, result.eventsSent());
        assertEquals(0, result.behindEvents(), "on a clock that keeps up nothing is late against the schedule");
        assertEquals(12_000 / 6.0, result.achievedRate(), 1.0, "the mean of the schedule, not --rate");
    }

    /** Under bursts:4x@3s+1s for 7 s the generator sends 4x in seconds 0, 3 and 6 and the rate elsewhere. */
    @Test
    void generatorRepeatsTheBurstEveryPeriod() {
        long[] expected = {2000, 500, 500, 2000, 500, 500, 2000};
        Generator.Result result = assertPerSecond(RateSchedule.parse("bursts:4x@3s+1s", 7_000), 250, expected);
        assertEquals(8_000, result.eventsSent());
        assertEquals(0, result.behindEvents());
        assertEquals(8_000 / 7.0, result.achievedRate(), 1.0);
    }

    /**
     * Runs the generator (two topics at {@code rate} each, {@code expected.length} seconds) under {@code schedule}
     * on a scripted clock and checks generator.csv's sent and scheduled counts per second.
     */
    private static Generator.Result assertPerSecond(RateSchedule schedule, long rate, long[] expected) {
        ScriptedClock clock = new ScriptedClock();
        CapturingSink sink = new CapturingSink(clock);
        StringWriter csv = new StringWriter();
        Generator g = new Generator(new Generator.Config(List.of("q0", "q1"), rate, expected.length * 1000L,
                DelayModels.parse("const:0"), schedule.warp(Gaps.regular(new Schedule(rate))), false), 3,
                new KmeansEventCodec(), clock, sink, new LagStats(2, csv));
        Generator.Result result = g.run(0, ScriptedClock.WALL_AT_ZERO_MS);
        List<String> rows = csv.toString().lines().skip(1).toList();
        for (int s = 0; s < expected.length; s++) {
            String[] row = rows.get(s).split(",");
            assertEquals(expected[s], Long.parseLong(row[1]), "sent in second " + s);
            assertEquals(expected[s], Long.parseLong(row[2]), "scheduled in second " + s);
        }
        return result;
    }
}
