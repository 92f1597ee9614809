package io.klink.generator;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Linear Road position reports (Arasu et al., VLDB 2004), one CSV line per event:
 * {@code 0,time_s,vid,speed,xway,lane,dir,seg,pos,event_time} — the LR type-0 tuple (time in epoch seconds,
 * speed in mph, lane 0 = entrance, 1-3 travel, 4 = exit, direction 0 east / 1 west, position in feet from the
 * expressway's west end, segment = position / 5280) plus the event time in ms.
 *
 * <p>Each topic has {@code 30 s × rate} car slots visited round robin, so at a regular schedule every car
 * reports every 30 s. A car drives {@link #MIN_TRIP}-{@link #MAX_TRIP} segments of one direction of one
 * expressway, then reports once in the exit lane and leaves; a new car enters in its slot (the first round
 * places cars mid-trip, so the road is full from the start). Speeds come from the segment: a seeded
 * {@link #CONGESTED_FRACTION} of the segments is congested (10-39 mph, so denser), the rest flows (40-79 mph).
 *
 * <p>Accidents: a moving car stops with probability {@code accidents per minute / (60 × rate)} per report and
 * waits, stopped, for the next car of its expressway and direction to reach its position; that car stops there
 * too (same lane) and both stay stopped {@link #STOPPED_REPORTS}+ reports, then drive on. A car waiting longer
 * than {@link #MAX_WAIT_REPORTS} reports gives up. The number of draws per event varies; each topic's stream
 * serves only its own codec, so the events still depend only on the seed and the topic.
 */
public final class LrbEventCodec implements EventCodec {

    public static final int SEGMENTS = 100;
    public static final int FEET_PER_SEGMENT = 5280;
    public static final int REPORT_PERIOD_S = 30;
    public static final int ENTRY_LANE = 0, EXIT_LANE = 4;
    public static final int MIN_TRIP = 5, MAX_TRIP = 40;
    public static final int MAX_EXPRESSWAYS = 32;
    public static final double CONGESTED_FRACTION = 0.15;
    /** LR's accident rule needs 4 consecutive reports at the same position. */
    public static final int STOPPED_REPORTS = 4;
    public static final int MAX_WAIT_REPORTS = 20;
    private static final int ROAD_END = SEGMENTS * FEET_PER_SEGMENT - 1;
    /** Feet driven between two reports at 1 mph: 5280 ft / 120 (30 s). */
    private static final int FEET_PER_MPH = 44;

    private final long seed;
    private final int cars;
    private final int expressways;
    private final double stopProbability;

    public LrbEventCodec(long seed, long ratePerTopic, int expressways, double accidentsPerMinute) {
        if (expressways < 1 || expressways > MAX_EXPRESSWAYS) {
            throw new IllegalArgumentException("expressways must be 1-" + MAX_EXPRESSWAYS + ", got " + expressways);
        }
        if (accidentsPerMinute < 0) {
            throw new IllegalArgumentException("accidents per minute must not be negative, got " + accidentsPerMinute);
        }
        long rate = Math.max(1, ratePerTopic);
        this.seed = seed;
        this.cars = (int) Math.min(REPORT_PERIOD_S * rate, 1 << 24);
        this.expressways = expressways;
        this.stopProbability = accidentsPerMinute / (60.0 * rate);
    }

    public int cars() {
        return cars;
    }

    @Override
    public EventCodec forTopic(int topic) {
        return new Traffic();
    }

    @Override
    public long draw(SplittableRandom rng) {
        throw new IllegalStateException("LRB cars move between reports: draw with forTopic(t)'s codec");
    }

    @Override
    public byte[] encode(long packed, long eventTimeMs) {
        return line(packed, eventTimeMs).getBytes(StandardCharsets.US_ASCII);
    }

    /** The CSV line of the report packed as {@code packed}, at {@code eventTimeMs}. */
    public static String line(long packed, long eventTimeMs) {
        int pos = pos(packed);
        return new StringBuilder(64).append("0,").append(Math.floorDiv(eventTimeMs, 1000)).append(',')
                .append(vid(packed)).append(',').append(speed(packed)).append(',').append(xway(packed)).append(',')
                .append(lane(packed)).append(',').append(dir(packed)).append(',').append(pos / FEET_PER_SEGMENT)
                .append(',').append(pos).append(',').append(eventTimeMs).toString();
    }

    // packed report: vid 26 bits | speed 7 | xway 5 | lane 3 | dir 1 | pos 20
    static long pack(int vid, int speed, int xway, int lane, int dir, int pos) {
        return vid | (long) speed << 26 | (long) xway << 33 | (long) lane << 38 | (long) dir << 41 | (long) pos << 42;
    }

    static int vid(long p) {
        return (int) (p & 0x3FFFFFF);
    }

    static int speed(long p) {
        return (int) (p >>> 26 & 0x7F);
    }

    static int xway(long p) {
        return (int) (p >>> 33 & 0x1F);
    }

    static int lane(long p) {
        return (int) (p >>> 38 & 0x7);
    }

    static int dir(long p) {
        return (int) (p >>> 41 & 0x1);
    }

    static int pos(long p) {
        return (int) (p >>> 42 & 0xFFFFF);
    }

    /** Whether segment {@code seg} of expressway {@code xway}, direction {@code dir} is congested (seeded). */
    boolean congested(int xway, int dir, int seg) {
        long h = new SplittableRandom(seed ^ (((long) xway * 2 + dir) * SEGMENTS + seg) * 0x9E3779B97F4A7C15L)
                .nextLong();
        return (h >>> 11) * 0x1.0p-53 < CONGESTED_FRACTION;
    }

    /** A stopped car waiting for a second car to stop at its position. */
    private record Site(int slot, int xway, int dir, int lane, int pos) {}

    /** One topic's cars, moved as their reports are drawn (in generation order). */
    private final class Traffic implements EventCodec {

        private final boolean[] congested = new boolean[expressways * 2 * SEGMENTS];
        private final int[] vid = new int[cars];
        private final byte[] xway = new byte[cars];
        private final byte[] dir = new byte[cars];
        private final byte[] lane = new byte[cars];
        private final int[] pos = new int[cars];
        private final int[] exitPos = new int[cars];
        /** > 0: stopped reports still to come after an accident; < 0: waiting for a partner (counts up); 0: moving. */
        private final int[] stopped = new int[cars];
        private final List<Site> sites = new ArrayList<>();
        private int slot;
        private int nextVid = 1;

        Traffic() {
            for (int x = 0; x < expressways; x++) {
                for (int d = 0; d < 2; d++) {
                    for (int s = 0; s < SEGMENTS; s++) {
                        congested[(x * 2 + d) * SEGMENTS + s] = LrbEventCodec.this.congested(x, d, s);
                    }
                }
            }
        }

        @Override
        public long draw(SplittableRandom rng) {
            int c = slot;
            slot = slot + 1 == cars ? 0 : slot + 1;
            if (vid[c] == 0) {
                enter(c, rng, true);
                return report(c, speedAt(c, rng));
            }
            if (stopped[c] != 0) {
                return stoppedReport(c);
            }
            if (lane[c] == EXIT_LANE) {
                enter(c, rng, false);
                return report(c, speedAt(c, rng));
            }
            return drive(c, rng);
        }

        @Override
        public byte[] encode(long packed, long eventTimeMs) {
            return LrbEventCodec.this.encode(packed, eventTimeMs);
        }

        private void enter(int c, SplittableRandom rng, boolean midTrip) {
            vid[c] = nextVid++;
            xway[c] = (byte) rng.nextInt(expressways);
            dir[c] = (byte) rng.nextInt(2);
            int trip = MIN_TRIP + rng.nextInt(MAX_TRIP - MIN_TRIP + 1);
            int entry = rng.nextInt(SEGMENTS - trip);  // in travel order
            int start = entry * FEET_PER_SEGMENT, end = (entry + trip) * FEET_PER_SEGMENT;
            int along = midTrip ? start + rng.nextInt(end - start) : start;
            pos[c] = dir[c] == 0 ? along : ROAD_END - along;
            exitPos[c] = dir[c] == 0 ? end : ROAD_END - end;
            lane[c] = (byte) (midTrip ? 1 + rng.nextInt(3) : ENTRY_LANE);
        }

        private int speedAt(int c, SplittableRandom rng) {
            boolean slow = congested[(xway[c] * 2 + dir[c]) * SEGMENTS + pos[c] / FEET_PER_SEGMENT];
            return slow ? 10 + rng.nextInt(30) : 40 + rng.nextInt(40);
        }

        private long report(int c, int speed) {
            return pack(vid[c], speed, xway[c], lane[c], dir[c], pos[c]);
        }

        private long stoppedReport(int c) {
            if (stopped[c] > 0) {
                stopped[c]--;
            } else if (++stopped[c] == 0) {  // waited too long: no accident
                sites.removeIf(site -> site.slot() == c);
            }
            return report(c, 0);
        }

        private long drive(int c, SplittableRandom rng) {
            if (lane[c] == ENTRY_LANE) {
                lane[c] = (byte) (1 + rng.nextInt(3));
            }
            int speed = speedAt(c, rng);
            int step = FEET_PER_MPH * speed;
            int from = pos[c];
            int to = dir[c] == 0 ? Math.min(ROAD_END, from + step) : Math.max(0, from - step);
            Site site = siteBetween(c, from, to);
            if (site != null) {  // the second car of an accident
                sites.remove(site);
                pos[c] = site.pos();
                lane[c] = (byte) site.lane();
                stopped[c] = STOPPED_REPORTS - 1;  // after this one
                stopped[site.slot()] = STOPPED_REPORTS + rng.nextInt(STOPPED_REPORTS);
                return report(c, 0);
            }
            pos[c] = to;
            if (dir[c] == 0 ? to >= exitPos[c] : to <= exitPos[c]) {
                pos[c] = exitPos[c];
                lane[c] = EXIT_LANE;
            } else if (stopProbability > 0 && rng.nextDouble() < stopProbability) {
                stopped[c] = -MAX_WAIT_REPORTS;
                sites.add(new Site(c, xway[c], dir[c], lane[c], to));
                return report(c, 0);
            }
            return report(c, speed);
        }

        /** A waiting site the car passes on this move (after {@code from}, up to {@code to}), if any. */
        private Site siteBetween(int c, int from, int to) {
            for (Site site : sites) {
                if (site.slot() != c && site.xway() == xway[c] && site.dir() == dir[c]
                        && (dir[c] == 0 ? site.pos() > from && site.pos() <= to
                                        : site.pos() < from && site.pos() >= to)) {
                    return site;
                }
            }
            return null;
        }
    }
}
