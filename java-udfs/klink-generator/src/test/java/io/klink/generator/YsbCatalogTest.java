package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class YsbCatalogTest {

    private static final Pattern UUID4 =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");

    @Test
    void campaignMapIsDeterministicForSameSeedAndCounts() {
        String a = YsbCatalog.create(42, 100, 10).campaignsJson();
        String b = YsbCatalog.create(42, 100, 10).campaignsJson();
        assertEquals(a, b);
        assertNotEquals(a, YsbCatalog.create(43, 100, 10).campaignsJson());
    }

    @Test
    void campaignMapHasCampaignsTimesAdsDistinctUuids() {
        YsbCatalog c = YsbCatalog.create(7, 5, 3);
        String json = c.campaignsJson();
        assertTrue(json.matches("\\{(\"[^\"]+\":\\[(\"[^\"]+\",?){3}\\],?){5}\\}"), json);
        Matcher m = Pattern.compile("\"([^\"]+)\"").matcher(json);
        Set<String> ids = new HashSet<>();
        int count = 0;
        while (m.find()) {
            assertTrue(UUID4.matcher(m.group(1)).matches(), m.group(1));
            ids.add(m.group(1));
            count++;
        }
        assertEquals(5 + 15, count);
        assertEquals(20, ids.size(), "all ids distinct");
        assertEquals(15, c.adCount());
        // ad i belongs to campaign i / adsPerCampaign, as listed in the map
        for (int i = 0; i < c.adCount(); i++) {
            String listed = "\"" + c.campaignOfAd(i) + "\":[";
            int at = json.indexOf(listed);
            int end = json.indexOf(']', at);
            assertTrue(json.substring(at, end).contains(c.adId(i)));
        }
    }

    @Test
    void aPrefixOfCampaignsIsStableWhenMoreCampaignsAreAsked() {
        YsbCatalog small = YsbCatalog.create(42, 2, 10);
        YsbCatalog big = YsbCatalog.create(42, 100, 10);
        for (int i = 0; i < small.adCount(); i++) {
            assertEquals(small.adId(i), big.adId(i));
        }
    }

    @Test
    void rejectsBadCounts() {
        assertThrows(IllegalArgumentException.class, () -> YsbCatalog.create(1, 0, 10));
        assertThrows(IllegalArgumentException.class, () -> YsbCatalog.create(1, 10, 0));
        assertThrows(IllegalArgumentException.class, () -> YsbCatalog.create(1, 10_000, 10_000));
    }
}
