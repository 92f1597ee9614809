package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DelayModelsTest {

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
        assertTrue(e.getMessage().contains("expected const:<duration>, e.g. const:300ms, const:1.5s, const:0"),
                e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), "one line");
    }

    @org.junit.jupiter.api.Test
    void nullSpecIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> DelayModels.parse(null));
    }
}
