package io.klink.generator;

import java.util.SplittableRandom;

/**
 * All randomness of a run, derived from one seed in a fixed order:
 * split #1 = ids of campaigns and ads, #2 = user/page id pools, then for topic t
 * (0-based, in --topics order) #(3+2t) = its event fields and #(4+2t) = its delays.
 * Topic t's streams therefore depend only on the seed and t, not on how many topics there are,
 * on the delay model (event fields and delays use separate streams), or on timing.
 */
public final class SeedStreams {

    public final SplittableRandom catalog;
    public final SplittableRandom pools;
    public final SplittableRandom[] events;
    public final SplittableRandom[] delays;

    private SeedStreams(long seed, int topics) {
        SplittableRandom root = new SplittableRandom(seed);
        catalog = root.split();
        pools = root.split();
        events = new SplittableRandom[topics];
        delays = new SplittableRandom[topics];
        for (int t = 0; t < topics; t++) {
            events[t] = root.split();
            delays[t] = root.split();
        }
    }

    public static SeedStreams of(long seed, int topics) {
        return new SeedStreams(seed, topics);
    }
}
