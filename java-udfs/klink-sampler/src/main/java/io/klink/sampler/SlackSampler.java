package io.klink.sampler;

import io.klink.metrics.Envelope;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/**
 * Slack-based stream progress: the watermark trails the largest event time seen by a slack K, and events are
 * passed on as they arrive (those behind the watermark too: the window counts them as late).
 * <ul>
 *   <li>{@code kslack} (the thesis' Default, §4.2.1): K = the largest network delay observed; no sampling.
 *   <li>{@code aq-kslack} (quality-driven K-Slack, Ji et al., our reading: the thesis gives no formulas): the
 *       error budget r_thr is split in half between coverage and sampling — K = the (1 − r_thr/2) quantile
 *       of recent delays (K-Slack's k until the history covers a window), so about r_thr/2 of the events miss their window, and each sub-stream is sampled
 *       at θ = n^w/N^w with n^w from Eq. 4.4 at error r_thr/2; a sampled event stands for 1/θ events.
 * </ul>
 */
public final class SlackSampler implements StreamSampler {

    private static final int RECENT_DELAYS = 8192;

    private final SamplerConfig config;
    private final boolean qualityDriven;
    private final StreamMonitor monitor;
    private final Random random;
    private final double z;
    private final long[] recentDelays = new long[RECENT_DELAYS];
    private final TreeMap<Long, long[]> sampledBySubstream = new TreeMap<>();
    private final TreeMap<Long, Double> rateBySubstream = new TreeMap<>();
    private long delaysSeen;
    private long slackMs;
    private long maxEventTime = Long.MIN_VALUE;
    private long watermark = Long.MIN_VALUE;

    public SlackSampler(SamplerConfig config, boolean qualityDriven) {
        this.config = config;
        this.qualityDriven = qualityDriven;
        this.monitor = config.newMonitor();
        this.random = new Random(config.seed());
        this.z = SampleSizes.z(config.confidence());
    }

    @Override
    public void onEvent(Envelope event, long nowMs, Output out) {
        monitor.observe(event, nowMs);
        recentDelays[(int) (delaysSeen++ % RECENT_DELAYS)] = Math.max(0, nowMs - event.timestamp);
        maxEventTime = Math.max(maxEventTime, event.timestamp);
        long end = monitor.substreamEnd(event.timestamp);
        boolean straggler = monitor.isClosed(end);  // its window may still be open: sampled at its sub-stream's rate
        double rate = straggler ? rateBySubstream.getOrDefault(end, 1.0) : rateBySubstream.computeIfAbsent(end,
                e -> plannedRate());
        if (rate >= 1.0 || random.nextDouble() < rate) {
            if (!straggler) {
                sampledBySubstream.computeIfAbsent(end, e -> new long[1])[0]++;
            }
            event.weight = 1.0 / rate;
            out.event(event);
        }
        onTime(nowMs, out);
    }

    @Override
    public void onProgress(long eventTime, long nowMs, Output out) {
        maxEventTime = Math.max(maxEventTime, eventTime);
        onTime(nowMs, out);
    }

    private double plannedRate() {
        if (!qualityDriven || monitor.historyLength() < config.substreamsPerWindow()) {
            return 1.0;
        }
        double windowSize = config.windowSize(monitor);
        double sample = config.windowSampleSize(monitor, z, config.error() / 2);
        return Math.min(1.0, sample / windowSize);
    }

    @Override
    public void onTime(long nowMs, Output out) {
        if (maxEventTime == Long.MIN_VALUE) {
            return;
        }
        boolean quantileSlack = qualityDriven && monitor.historyLength() >= config.substreamsPerWindow();
        long next = maxEventTime - (quantileSlack ? slackMs : monitor.maxDelayMs());
        if (next <= watermark) {
            return;
        }
        watermark = next;
        long complete = monitor.substreamEnd(watermark + 1) - config.substreamMs();  // every event < it is due
        List<Substream> closedSubstreams = monitor.closeUpTo(complete);
        for (Substream closed : closedSubstreams) {
            long[] sampled = sampledBySubstream.remove(closed.end);
            out.substream(new SubstreamReport(closed.end, nowMs, closed.observed(), sampled == null ? 0 : sampled[0],
                    rateBySubstream.getOrDefault(closed.end, 1.0), 0, 0));
        }
        rateBySubstream.headMap(complete - 2 * config.windowMs()).clear();  // kept for stragglers of open windows
        if (qualityDriven && !closedSubstreams.isEmpty()) {
            slackMs = delayQuantile(1 - config.error() / 2);
        }
        out.watermark(watermark);
    }

    /** The q-quantile of the most recent delays (at most {@value #RECENT_DELAYS}). */
    private long delayQuantile(double q) {
        int n = (int) Math.min(delaysSeen, RECENT_DELAYS);
        if (n == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(recentDelays, n);
        Arrays.sort(sorted);
        return sorted[Math.min(n - 1, (int) Math.ceil(q * n) - 1)];
    }
}
