package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ExclamationEventCodecTest {

    @Test
    void linesCarryAnIdAWordAndTheEventTime() {
        ExclamationEventCodec codec = new ExclamationEventCodec();
        SplittableRandom rng = new SplittableRandom(42);
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            long packed = codec.draw(rng);
            String[] line = new String(codec.encode(packed, 1234), StandardCharsets.US_ASCII).split(",");
            assertEquals(3, line.length);
            assertTrue(Long.parseLong(line[0]) >= 0);
            assertTrue(Set.of(ExclamationEventCodec.WORDS).contains(line[1]));
            assertEquals("1234", line[2]);
            ids.add(Long.parseLong(line[0]));
        }
        assertEquals(10_000, ids.size());
    }
}
