package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The average workload's events: {@code w<key>,<value>,event_time}, every key and value range used, reproducible. */
class AverageEventCodecTest {

    @Test
    void eventsAreWordValueAndEventTimeDrawnFromTheSeed() {
        AverageEventCodec codec = new AverageEventCodec();
        SplittableRandom rng = new SplittableRandom(3);
        Set<String> keys = new HashSet<>();
        long sum = 0;
        for (int i = 0; i < 20_000; i++) {
            long packed = codec.draw(rng);
            String[] c = new String(codec.encode(packed, 1000L + i), StandardCharsets.US_ASCII).split(",");
            assertEquals(3, c.length);
            assertEquals(Long.toString(1000L + i), c[2]);
            int value = Integer.parseInt(c[1]);
            assertTrue(value >= 0 && value < AverageEventCodec.MAX_VALUE);
            keys.add(c[0]);
            sum += value;
            assertEquals(new String(codec.encode(packed, 7)), new String(codec.encode(packed, 7)));
        }
        assertEquals(AverageEventCodec.KEYS, keys.size());
        assertEquals(499.5, sum / 20_000.0, 10);  // uniform in [0, 1000)
    }
}
