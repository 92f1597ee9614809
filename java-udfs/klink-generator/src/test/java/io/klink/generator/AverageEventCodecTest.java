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

    @Test
    void aPayloadIsThatManyLettersBetweenValueAndEventTime() {
        AverageEventCodec plain = new AverageEventCodec();
        AverageEventCodec codec = new AverageEventCodec(2048);
        SplittableRandom rng = new SplittableRandom(5);
        Set<String> payloads = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            long packed = codec.draw(rng);
            String[] c = new String(codec.encode(packed, 42), StandardCharsets.US_ASCII).split(",");
            String[] without = new String(plain.encode(packed, 42), StandardCharsets.US_ASCII).split(",");
            assertEquals(4, c.length);
            assertEquals(without[0], c[0]);
            assertEquals(without[1], c[1]);
            assertEquals(2048, c[2].length());
            assertTrue(c[2].chars().allMatch(ch -> ch >= 'a' && ch <= 'z'));
            assertEquals("42", c[3]);
            payloads.add(c[2]);
        }
        assertTrue(payloads.size() > 190, "payloads differ between events");
    }
}
