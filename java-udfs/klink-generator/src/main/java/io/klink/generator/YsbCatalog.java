package io.klink.generator;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * The static side of the Yahoo Streaming Benchmark: {@code campaigns x adsPerCampaign} ad ids
 * (ad {@code i} belongs to campaign {@code i / adsPerCampaign}) and pools of user and page ids, all
 * UUID-shaped (version-4 layout) and derived from the seed. Id strings are rendered once, here.
 */
public final class YsbCatalog {

    /** Size of the user id and page id pools (as in the original YSB generator). */
    public static final int USER_POOL = 100;
    public static final int PAGE_POOL = 100;
    public static final int MAX_ADS = 1_000_000;

    private final int adsPerCampaign;
    private final String[] campaignIds;
    private final String[] adIds;
    final byte[][] adIdBytes;
    final byte[][] userIdBytes;
    final byte[][] pageIdBytes;

    private YsbCatalog(SeedStreams seeds, int campaigns, int adsPerCampaign) {
        if (campaigns < 1 || adsPerCampaign < 1 || (long) campaigns * adsPerCampaign > MAX_ADS) {
            throw new IllegalArgumentException("need campaigns >= 1, ads-per-campaign >= 1 and at most "
                    + MAX_ADS + " ads in total, got " + campaigns + " x " + adsPerCampaign);
        }
        this.adsPerCampaign = adsPerCampaign;
        campaignIds = new String[campaigns];
        adIds = new String[campaigns * adsPerCampaign];
        SplittableRandom rng = seeds.catalog;
        for (int c = 0; c < campaigns; c++) {
            campaignIds[c] = uuid(rng);
            for (int a = 0; a < adsPerCampaign; a++) {
                adIds[c * adsPerCampaign + a] = uuid(rng);
            }
        }
        adIdBytes = ascii(adIds);
        String[] users = new String[USER_POOL];
        String[] pages = new String[PAGE_POOL];
        for (int i = 0; i < USER_POOL; i++) {
            users[i] = uuid(seeds.pools);
        }
        for (int i = 0; i < PAGE_POOL; i++) {
            pages[i] = uuid(seeds.pools);
        }
        userIdBytes = ascii(users);
        pageIdBytes = ascii(pages);
    }

    public static YsbCatalog create(long seed, int campaigns, int adsPerCampaign) {
        return new YsbCatalog(SeedStreams.of(seed, 0), campaigns, adsPerCampaign);
    }

    static YsbCatalog create(SeedStreams seeds, int campaigns, int adsPerCampaign) {
        return new YsbCatalog(seeds, campaigns, adsPerCampaign);
    }

    public int adCount() {
        return adIds.length;
    }

    public String adId(int index) {
        return adIds[index];
    }

    public String campaignOfAd(int index) {
        return campaignIds[index / adsPerCampaign];
    }

    public String userId(int index) {
        return new String(userIdBytes[index], StandardCharsets.US_ASCII);
    }

    public String pageId(int index) {
        return new String(pageIdBytes[index], StandardCharsets.US_ASCII);
    }

    /** {@code {"<campaign_id>":["<ad_id>",...],...}} in campaign order, one line, no spaces. */
    public String campaignsJson() {
        StringBuilder sb = new StringBuilder(adIds.length * 40 + campaignIds.length * 44);
        sb.append('{');
        for (int c = 0; c < campaignIds.length; c++) {
            if (c > 0) {
                sb.append(',');
            }
            sb.append('"').append(campaignIds[c]).append("\":[");
            for (int a = 0; a < adsPerCampaign; a++) {
                if (a > 0) {
                    sb.append(',');
                }
                sb.append('"').append(adIds[c * adsPerCampaign + a]).append('"');
            }
            sb.append(']');
        }
        return sb.append('}').toString();
    }

    private static String uuid(SplittableRandom rng) {
        long msb = (rng.nextLong() & ~0xF000L) | 0x4000L;
        long lsb = (rng.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb).toString();
    }

    private static byte[][] ascii(String[] values) {
        byte[][] out = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            out[i] = values[i].getBytes(StandardCharsets.US_ASCII);
        }
        return out;
    }
}
