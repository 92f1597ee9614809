package io.klink.workloads.ysb;

import io.klink.metrics.Envelope;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * YSB step 3-4: join ad id -> campaign id against the static campaign table (YSB keeps it in Redis;
 * here it ships with the operator). An ad outside the table maps to "unknown" and is still counted.
 */
public class CampaignJoin implements MapFunction<Envelope, Envelope> {

    public static final String UNKNOWN = "unknown";
    private final HashMap<String, String> campaignByAd;

    public CampaignJoin(Map<String, List<String>> adsByCampaign) {
        campaignByAd = byAd(adsByCampaign);
    }

    /** Ad id -> campaign id. */
    static HashMap<String, String> byAd(Map<String, List<String>> adsByCampaign) {
        HashMap<String, String> campaignByAd = new HashMap<>();
        adsByCampaign.forEach((campaign, ads) -> ads.forEach(ad -> campaignByAd.put(ad, campaign)));
        return campaignByAd;
    }

    @Override
    public Envelope map(Envelope e) {
        if (e.isData()) {
            e.key = campaignByAd.getOrDefault(e.key, UNKNOWN);
        }
        return e;
    }

    public int ads() {
        return campaignByAd.size();
    }
}
