package io.klink.sampler;

import io.klink.metrics.Envelope;
import io.klink.metrics.TumblingCountWindows;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.TreeMap;

/**
 * Aion's statistics monitor (thesis §4.1.1, Fig. 4.1): splits a window stream into sub-streams of length f
 * aligned with the windows, records per sub-stream the events observed, their network delay (arrival wall
 * time − event time) and their keys, and estimates the next sub-streams from the last m closed ones (Eq. 4.1).
 * Stragglers of a closed sub-stream still count towards it while it is in the history.
 */
public final class StreamMonitor {

    private final long substreamMs;
    private final long offsetMs;
    private final int historySize;
    private final TreeMap<Long, Substream> open = new TreeMap<>();
    private final LinkedHashMap<Long, Substream> history = new LinkedHashMap<>();
    private long closedUpTo = Long.MIN_VALUE;
    private long maxDelayMs;

    public StreamMonitor(long substreamMs, long offsetMs, int historySize) {
        if (substreamMs <= 0 || historySize < 1) {
            throw new IllegalArgumentException("sub-stream length and history must be positive");
        }
        this.substreamMs = substreamMs;
        this.offsetMs = Math.floorMod(offsetMs, substreamMs);
        this.historySize = historySize;
    }

    public long substreamMs() {
        return substreamMs;
    }

    /** End (exclusive, event time) of the sub-stream an event time falls in. */
    public long substreamEnd(long eventTime) {
        return TumblingCountWindows.windowEnd(eventTime, substreamMs, offsetMs);
    }

    /** Records an arriving event in its sub-stream (open, or closed and still in the history). */
    public void observe(Envelope event, long nowMs) {
        long end = substreamEnd(event.timestamp);
        long delay = Math.max(0, nowMs - event.timestamp);
        maxDelayMs = Math.max(maxDelayMs, delay);
        Substream substream = isClosed(end) ? history.get(end) : open(end);
        if (substream != null) {
            substream.observe(event.key, event.timestamp, delay, event.fields);
        }
    }

    /** True once the sub-stream ending at {@code end} was closed: its events are stragglers. */
    public boolean isClosed(long end) {
        return end <= closedUpTo;
    }

    public Substream open(long end) {
        return open.computeIfAbsent(end, Substream::new);
    }

    /** The open sub-stream with the earliest end, or null. */
    public Long firstOpenEnd() {
        return open.isEmpty() ? null : open.firstKey();
    }

    /** Closes every sub-stream ending at or before {@code end}, in order, into the history; returns them. */
    public List<Substream> closeUpTo(long end) {
        List<Substream> closed = new ArrayList<>();
        while (!open.isEmpty() && open.firstKey() <= end) {
            closed.add(keep(open.pollFirstEntry().getValue()));
        }
        closedUpTo = Math.max(closedUpTo, end);
        return closed;
    }

    private Substream keep(Substream substream) {
        history.put(substream.end, substream);
        Iterator<Long> oldest = history.keySet().iterator();
        while (history.size() > historySize) {
            oldest.next();
            oldest.remove();
        }
        return substream;
    }

    /** Sub-streams closed so far and still in the history. */
    public int historyLength() {
        return history.size();
    }

    public long maxDelayMs() {
        return maxDelayMs;
    }

    /** E[D] (Eq. 4.1): the mean of the history's per-sub-stream mean delays. */
    public double meanDelayMs() {
        RunningStats means = new RunningStats();
        for (Substream s : history.values()) {
            if (s.observed() > 0) {
                means.add(s.delays.mean());
            }
        }
        return means.mean();
    }

    /** E[G] (Eq. 4.1 for the inter-event generation gaps): the mean of the history's per-sub-stream mean gaps. */
    public double meanGapMs() {
        RunningStats gaps = new RunningStats();
        for (Substream s : history.values()) {
            if (!Double.isNaN(s.meanGapMs())) {
                gaps.add(s.meanGapMs());
            }
        }
        return gaps.count() == 0 || gaps.mean() <= 0 ? Double.POSITIVE_INFINITY : gaps.mean();
    }

    /**
     * The spread of a sub-stream's size: the standard deviation of f / g over the history's sub-streams (a
     * partial sub-stream, e.g. the first one, still has the stream's gaps).
     */
    public double sizeDeviation() {
        RunningStats sizes = new RunningStats();
        for (Substream s : history.values()) {
            if (s.meanGapMs() > 0) {
                sizes.add(substreamMs / s.meanGapMs());
            }
        }
        return sizes.standardDeviation();
    }

    /** The closed sub-streams still in the history, oldest first. */
    public Collection<Substream> history() {
        return Collections.unmodifiableCollection(history.values());
    }
}
