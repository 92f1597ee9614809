package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GeneratorArgsTest {

    @Test
    void parsesTheFullCommandLine() throws Exception {
        GeneratorArgs a = GeneratorArgs.parse("--bootstrap", "127.0.0.1:9092", "--topics", "q00-ysb,q01-ysb",
                "--rate", "1000", "--duration", "30s", "--seed", "7", "--delay=const:300ms", "--campaigns", "50",
                "--ads-per-campaign", "4", "--stats-file", "/tmp/s.csv", "--summary-file", "/tmp/s.json",
                "--start-at-ms", "1700000000000", "--compression", "none", "--linger-ms", "0");
        assertEquals("127.0.0.1:9092", a.bootstrap);
        assertEquals(List.of("q00-ysb", "q01-ysb"), a.topics);
        assertEquals(1000, a.ratePerTopic);
        assertEquals(30_000, a.durationMs);
        assertEquals(7, a.seed);
        assertEquals("const:300ms", a.delay.spec());
        assertEquals(50, a.campaigns);
        assertEquals(4, a.adsPerCampaign);
        assertEquals(Path.of("/tmp/s.csv"), a.statsFile);
        assertEquals(Path.of("/tmp/s.json"), a.summaryFile);
        assertEquals(1_700_000_000_000L, a.startAtMs);
        assertEquals("none", a.compression);
        assertEquals(0, a.lingerMs);
        assertFalse(a.maxRate);
    }

    @Test
    void defaultsAndMaxRate() throws Exception {
        GeneratorArgs a = GeneratorArgs.parse("--bootstrap", "b:1", "--topics", "t", "--duration", "10",
                "--max-rate");
        assertTrue(a.maxRate);
        assertEquals(10_000, a.durationMs, "bare duration = seconds");
        assertEquals(42, a.seed);
        assertEquals("const:0", a.delay.spec());
        assertEquals(100, a.campaigns);
        assertEquals(10, a.adsPerCampaign);
        assertEquals("lz4", a.compression);
        assertNull(a.startAtMs);
    }

    @Test
    void warmUpFlagsAndFractionalDurations() throws Exception {
        GeneratorArgs a = GeneratorArgs.parse("--bootstrap", "b:1", "--topics", "t", "--duration", "30.0s",
                "--rate", "5", "--warmup", "0", "--warmup-topic", "wu");
        assertEquals(30_000, a.durationMs);
        assertEquals(0, a.warmupMs);
        assertEquals("wu", a.warmupTopic);
        assertEquals(15_000, GeneratorArgs.parse("--bootstrap", "b:1", "--topics", "t", "--duration", "1",
                "--rate", "5").warmupMs, "default: at most 15 s");
        UsageException e = assertThrows(UsageException.class, () -> GeneratorArgs.parse("--bootstrap", "b:1",
                "--topics", "t,wu-1", "--duration", "1", "--rate", "5", "--warmup-topic", "wu"));
        assertTrue(e.getMessage().contains("could be a warm-up topic"), e.getMessage());
    }

    @Test
    void printCampaignsNeedsNoKafkaFlags() throws Exception {
        GeneratorArgs a = GeneratorArgs.parse("--print-campaigns", "--seed", "3", "--campaigns", "2");
        assertTrue(a.printCampaigns);
        assertEquals(2, a.campaigns);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--rate 0|--rate must be between 1",
            "--rate -5|--rate must be between 1",
            "--rate ten|--rate must be an integer",
            "--duration 10x|--duration: '10x' is not a duration",
            "--duration 0|--duration must be > 0",
            "--delay const:fast|--delay: invalid delay spec 'const:fast'",
            "--gaps poisson|--gaps: invalid inter-event gap spec 'poisson': expected const or gamma:<k>",
            "--gaps gamma:0|--gaps: gamma shape k must be > 0",
            "--frobnicate 1|unknown option --frobnicate",
            "--topics a,,b|is not a Kafka topic name",
            "--topics a,a|listed twice",
            "--compression zstd|--compression must be none, lz4 or gzip",
            "--campaigns 0|--campaigns must be a positive integer",
            "--rate 5 --rate 6|--rate given more than once",
            "stray|unexpected argument 'stray'",
            "--rate 10 --rate-schedule surge:4x@4s+2s|--rate-schedule: rate schedule 'surge:4x@4s+2s': the surge ends at 6s, after the run's 5s",
            "--rate 10 --rate-schedule ramp:4|--rate-schedule: invalid rate schedule 'ramp:4'",
            "--rate-schedule ramp:4x --max-rate|--rate-schedule ramp:4x needs a schedule; --max-rate has none",
            "--rate 600000000 --rate-schedule ramp:4x|--rate-schedule ramp:4x takes --rate 600000000 above 1000000000",
            "--rate 10 --rate-schedule bursts:3x@1s+1s|--rate-schedule: rate schedule 'bursts:3x@1s+1s': the period (1s) must be longer than the burst (1s)",
            "--rate 600000000 --rate-schedule bursts:2x@2s+1s|--rate-schedule bursts:2x@2s+1s takes --rate 600000000 above 1000000000",
    })
    void badArgumentsGiveOneLineErrors(String extra, String expected) {
        List<String> argv = new java.util.ArrayList<>(List.of(extra.split(" ")));
        for (String[] base : new String[][]{{"--bootstrap", "b:1"}, {"--topics", "t"}, {"--duration", "5s"},
                {"--rate", "10"}}) {
            if (!extra.contains(base[0])) {
                argv.addAll(List.of(base));
            }
        }
        UsageException e = assertThrows(UsageException.class, () -> GeneratorArgs.parse(argv.toArray(new String[0])));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
    }

    @Test
    void requiredFlags() {
        assertThrows(UsageException.class, () -> GeneratorArgs.parse("--topics", "t", "--rate", "1", "--duration", "1"));
        assertThrows(UsageException.class, () -> GeneratorArgs.parse("--bootstrap", "b", "--rate", "1", "--duration", "1"));
        assertThrows(UsageException.class, () -> GeneratorArgs.parse("--bootstrap", "b", "--topics", "t", "--duration", "1"));
        assertThrows(UsageException.class, () -> GeneratorArgs.parse("--bootstrap", "b", "--topics", "t", "--rate", "1"));
        assertThrows(UsageException.class, () -> GeneratorArgs.parse("--bootstrap"));
    }
}
