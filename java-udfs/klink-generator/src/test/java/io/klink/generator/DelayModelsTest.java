package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DelayModelsTest {

    @Test
    void everyKindsExampleParsesAsThatKindAndRoundTrips() {
        for (DelayModels.Kind kind : DelayModels.KINDS) {
            DelayModel m = DelayModels.parse(kind.example());
            assertTrue(m.spec().startsWith(kind.name() + ":"), m.spec());
            assertEquals(m, DelayModels.parse(m.spec()), "spec() round-trips");
            assertTrue(kind.form().startsWith(kind.name() + ":") && !kind.parameters().isEmpty(), kind.form());
            assertTrue(DelayModels.EXPECTED.contains(kind.form() + " (" + kind.example() + ")"));
        }
    }

    @Test
    void everyGapKindsExampleParses() {
        for (Gaps.Kind kind : Gaps.KINDS) {
            assertEquals(kind.example(), Gaps.parse(kind.example(), new Schedule(1000)).spec());
        }
    }

    @ParameterizedTest
    @CsvSource({
            "const:300ms, 300, const:300ms",
            "const:0, 0, const:0",
            "const:0ms, 0, const:0",
            "const:1.5s, 1500, const:1500ms",
            "const:2s, 2000, const:2s",
            "const:300, 300, const:300ms",
            "const:1m, 60000, const:60s",
            "' const:25ms ', 25, const:25ms",
    })
    void parsesConstantSpecs(String spec, long expectedMs, String canonical) {
        DelayModel m = DelayModels.parse(spec);
        assertTrue(m.isConstant());
        assertEquals(expectedMs, m.sampleDelayMs(new SplittableRandom(1)));
        assertEquals(canonical, m.spec());
        assertEquals(m, DelayModels.parse(m.spec()), "spec() round-trips");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "const", "const:", "const:-5ms", "const:abc", "const:5 ms", "const:0.5ms",
            "const:1.0005s", "uniform:1ms", "300ms", ":300ms", "CONST:300ms", "const:300us"})
    void rejectsMalformedSpecsWithTheExpectedForm(String spec) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DelayModels.parse(spec));
        assertTrue(e.getMessage().contains("'" + spec + "'"), e.getMessage());
        assertTrue(e.getMessage().contains("expected one of const:<d> (const:300ms), uniform:<low>-<high>"),
                e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), "one line");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // spec | canonical | expected mean (ms) | expected standard deviation (ms)
            "uniform:0-2s | uniform:0-2s | 1000 | 577.6",
            "uniform:100-300ms | uniform:100ms-300ms | 200 | 57.9",
            "normal:300ms:50ms | normal:300ms:50ms | 300 | 50",
            "exp:240ms | exp:240ms | 240 | 240",
            "gamma:60:4ms | gamma:60:4ms | 240 | 31.0",
            "gamma:2:0.5 | gamma:2:0.5ms | 1.0 | 0.75",
            "lognormal:200ms:0.5 | lognormal:200ms:0.5 | 226.6 | 120.8",
            "pareto:100ms:3 | pareto:100ms:3 | 150 | 86.6",
    })
    void randomModelsRoundTripAndHaveTheirMoments(String spec, String canonical, double mean, double sd) {
        DelayModel m = DelayModels.parse(spec);
        assertEquals(canonical, m.spec());
        assertEquals(m, DelayModels.parse(m.spec()), "spec() round-trips");
        SplittableRandom rng = new SplittableRandom(7);
        int n = 200_000;
        double sum = 0;
        double sq = 0;
        for (int i = 0; i < n; i++) {
            long d = m.sampleDelayMs(rng);
            assertTrue(d >= 0, spec + " sampled " + d);
            sum += d;
            sq += (double) d * d;
        }
        double observedMean = sum / n;
        double observedSd = Math.sqrt(sq / n - observedMean * observedMean);
        // whole-ms rounding shifts small-scale models (gamma:2:0.5) by up to ~0.3 ms; 3 % + 0.35 ms covers it
        assertEquals(mean, observedMean, 0.03 * mean + 0.35, spec + " mean");
        assertEquals(sd, observedSd, 0.05 * sd + 0.35, spec + " standard deviation");
    }

    @org.junit.jupiter.api.Test
    void zipfPutsMassOnSmallDelaysInItsRange() {
        DelayModel m = DelayModels.parse("zipf:0.99:0-2s");
        assertEquals("zipf:0.99:0-2s", m.spec());
        SplittableRandom rng = new SplittableRandom(3);
        int n = 200_000;
        int zeros = 0;
        long max = 0;
        for (int i = 0; i < n; i++) {
            long d = m.sampleDelayMs(rng);
            zeros += d == 0 ? 1 : 0;
            max = Math.max(max, d);
        }
        double p0 = 0;
        for (int i = 1; i <= 2001; i++) {
            p0 += 1.0 / Math.pow(i, 0.99);
        }
        assertEquals(1.0 / p0, (double) zeros / n, 0.005, "P(0) = 1 / H(2001, 0.99)");
        assertTrue(max <= 2000 && max > 1500, "range respected and reached: " + max);
    }

    @ParameterizedTest
    @ValueSource(strings = {"uniform:2s-1s", "normal:300ms", "normal:300ms:0", "exp:0", "gamma:0:4ms",
            "gamma:60", "lognormal:0:1", "pareto:100ms:-1", "zipf:0.99", "zipf:x:0-1s", "zipf:1:0s"})
    void rejectsBadParameters(String spec) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DelayModels.parse(spec));
        assertTrue(e.getMessage().startsWith("invalid delay spec '" + spec + "'"), e.getMessage());
    }

    @org.junit.jupiter.api.Test
    void nullSpecIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> DelayModels.parse(null));
    }
}
