package io.klink.generator;

import java.util.SplittableRandom;

/**
 * All randomness of a run, derived from one seed in a fixed order:
 * split #1 = ids of campaigns and ads, #2 = user/page id pools, then for topic t
 * (0-based, in --topics order) #(3+2t) = its event fields and #(4+2t) = its delays.
 * Topic t's streams therefore depend only on the seed and t, not on how many topics there are,
 * on the delay model (event fields and delays use separate streams), or on timing. Inter-event gaps
 * come from a second root (the seed mixed with a constant), so adding them changed no earlier stream.
 */
public final class SeedStreams {

    public final SplittableRandom catalog;
    public final SplittableRandom pools;
    public final SplittableRandom[] events;
    public final SplittableRandom[] delays;
    public final SplittableRandom[] gaps;

    /** Any fixed odd constant; it only separates the gap streams from the main ones. */
    private static final long GAP_ROOT_MIX = 0x6A09E667F3BCC909L;

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
        SplittableRandom gapRoot = new SplittableRandom(seed ^ GAP_ROOT_MIX);
        gaps = new SplittableRandom[topics];
        for (int t = 0; t < topics; t++) {
            gaps[t] = gapRoot.split();
        }
    }

    public static SeedStreams of(long seed, int topics) {
        return new SeedStreams(seed, topics);
    }
}
