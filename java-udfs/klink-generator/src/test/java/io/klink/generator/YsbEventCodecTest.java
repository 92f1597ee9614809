package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class YsbEventCodecTest {

    @Test
    void jsonHasTheSevenYsbFieldsWithTheRightTypes() {
        YsbCatalog catalog = YsbCatalog.create(42, 10, 10);
        Set<String> ads = new HashSet<>();
        for (int i = 0; i < catalog.adCount(); i++) {
            ads.add(catalog.adId(i));
        }
        YsbEventCodec codec = new YsbEventCodec(catalog);
        SplittableRandom rng = new SplittableRandom(1);
        Set<String> adTypes = new HashSet<>();
        Set<String> eventTypes = new HashSet<>();
        for (int n = 0; n < 2000; n++) {
            long time = 1_700_000_000_000L + n;
            long packed = codec.draw(rng);
            Map<String, Object> e = TinyJson.parseFlatObject(codec.toJson(packed, time));
            assertEquals(List.of("user_id", "page_id", "ad_id", "ad_type", "event_type", "event_time", "ip"),
                    List.copyOf(e.keySet()));
            assertInstanceOf(String.class, e.get("user_id"));
            assertInstanceOf(String.class, e.get("page_id"));
            assertTrue(ads.contains((String) e.get("ad_id")));
            assertTrue(Arrays.asList(YsbEventCodec.AD_TYPES).contains(e.get("ad_type")));
            assertTrue(Arrays.asList(YsbEventCodec.EVENT_TYPES).contains(e.get("event_type")));
            assertEquals(time, e.get("event_time"));
            assertEquals("1.2.3.4", e.get("ip"));
            assertEquals(catalog.userId(YsbEventCodec.userIndex(packed)), e.get("user_id"));
            assertEquals(catalog.pageId(YsbEventCodec.pageIndex(packed)), e.get("page_id"));
            adTypes.add((String) e.get("ad_type"));
            eventTypes.add((String) e.get("event_type"));
        }
        assertEquals(5, adTypes.size(), "all ad types occur");
        assertEquals(3, eventTypes.size(), "all event types occur");
    }

    @Test
    void eventTypesAreRoughlyUniform() {
        YsbEventCodec codec = new YsbEventCodec(YsbCatalog.create(1, 100, 10));
        SplittableRandom rng = new SplittableRandom(3);
        int[] counts = new int[3];
        int n = 300_000;
        for (int i = 0; i < n; i++) {
            counts[YsbEventCodec.eventTypeIndex(codec.draw(rng))]++;
        }
        for (int c : counts) {
            assertEquals(n / 3.0, c, n * 0.01);
        }
    }

    @Test
    void writesAnyLongAsDecimal() {
        byte[] b = new byte[32];
        for (long v : new long[]{0, 7, 10, 1_700_000_000_123L, -42, Long.MAX_VALUE, Long.MIN_VALUE}) {
            int len = YsbEventCodec.putLong(b, 0, v);
            assertEquals(Long.toString(v), new String(b, 0, len));
        }
    }
}
