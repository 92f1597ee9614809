package io.klink.sampler;

import io.klink.metrics.Envelope;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/**
 * Aion (thesis Alg. 4–5): samples each sub-stream at a rate planned from the monitor's history so that the
 * window's sample of size n^w (Eq. 4.4) is complete by the deadline, and processes a sub-stream — its sample,
 * then a watermark at its end — as soon as its deadline has passed and its sample is big enough, without
 * waiting for stragglers (Alg. 4 SafeToProcess). Stragglers of a processed sub-stream are dropped and counted.
 *
 * <p>{@code aion-minus} ({@code circumventStragglers = false}): the same sample size, but the rate is planned
 * over all of the sub-stream's events, n_i / E[N_i], and the watermark waits for the slack (K-Slack's k, the
 * largest delay observed). Until the history covers one window, both behave like K-Slack without sampling.
 *
 * <p>A sub-stream's sample goes to the window when it is processed, each event weighted by
 * max(E[N_i], observed) / sampled (Eq. 4.5: the sample mean scaled up to the sub-stream's size). A sub-stream
 * never waits longer than K-Slack would: at end + k it is processed with whatever sample it has.
 */
public final class AionSampler implements StreamSampler {

    private final SamplerConfig config;
    private final boolean circumventStragglers;
    private final StreamMonitor monitor;
    private final Random random;
    private final double z;
    private final TreeMap<Long, Sample> samples = new TreeMap<>();
    private long processedUpTo = Long.MIN_VALUE;
    private long droppedLate;

    /**
     * A sub-stream's plan — rate θ_i, target n_i (0: wait for the slack instead), expected size E[N_i] — and
     * the events sampled so far.
     */
    private record Sample(double rate, double target, double expectedSize, List<Envelope> events) {
        static Sample unplanned() {
            return new Sample(1.0, 0, 0, new ArrayList<>());
        }
    }

    public AionSampler(SamplerConfig config, boolean circumventStragglers) {
        this.config = config;
        this.circumventStragglers = circumventStragglers;
        this.monitor = config.newMonitor();
        this.random = new Random(config.seed());
        this.z = SampleSizes.z(config.confidence());
    }

    @Override
    public void onEvent(Envelope event, long nowMs, Output out) {
        onTime(nowMs, out);  // sub-streams due by now are processed first: they are history for this event's plan
        long end = monitor.substreamEnd(event.timestamp);
        if (processedUpTo == Long.MIN_VALUE) {
            processedUpTo = end - config.substreamMs();
            monitor.closeUpTo(processedUpTo);
        }
        monitor.observe(event, nowMs);
        if (end <= processedUpTo) {
            droppedLate++;
            return;
        }
        Sample sample = samples.computeIfAbsent(end, e -> plan());
        if (sample.rate >= 1.0 || random.nextDouble() < sample.rate) {
            sample.events.add(event);
        }
        onTime(nowMs, out);  // this event may have completed a sample
    }

    /** Alg. 5 getSampleSize + Eq. 4.7–4.8 for the next sub-stream, from the history of closed ones. */
    private Sample plan() {
        if (monitor.historyLength() < config.substreamsPerWindow()) {
            return Sample.unplanned();
        }
        double expectedSize = config.substreamSize(monitor);
        int k = config.substreamsPerWindow();
        double windowSample = config.windowSampleSize(monitor, z, config.error());
        double substreamSample = Math.max(1.0, windowSample / k);  // a scale-up needs at least one event
        if (!circumventStragglers) {
            return new Sample(Math.min(1.0, substreamSample / expectedSize), 0, expectedSize, new ArrayList<>());
        }
        double byDeadline = SampleSizes.arrivedByDeadline(config.substreamMs(), monitor.meanDelayMs(),
                monitor.meanGapMs());
        return new Sample(SampleSizes.samplingRate(substreamSample, byDeadline), substreamSample, expectedSize,
                new ArrayList<>());
    }

    @Override
    public void onTime(long nowMs, Output out) {
        if (processedUpTo == Long.MIN_VALUE) {
            return;
        }
        long end = processedUpTo + config.substreamMs();
        while (safeToProcess(end, samples.get(end), nowMs)) {
            process(end, nowMs, out);
            end += config.substreamMs();
        }
    }

    /** Alg. 4 SafeToProcess: the deadline has passed and the sample is big enough (or K-Slack's slack is over). */
    private boolean safeToProcess(long end, Sample sample, long nowMs) {
        boolean slackOver = nowMs >= end + monitor.maxDelayMs();
        if (!circumventStragglers || sample == null || sample.target == 0) {
            return slackOver;
        }
        return nowMs >= end && (sample.events.size() >= sample.target || slackOver);
    }

    private void process(long end, long nowMs, Output out) {
        Sample sample = samples.remove(end);
        List<Substream> closed = monitor.closeUpTo(end);
        long observed = closed.isEmpty() ? 0 : closed.get(closed.size() - 1).observed();
        long sampled = sample == null ? 0 : sample.events.size();
        if (sampled > 0) {
            double weight = Math.max(sample.expectedSize, observed) / sampled;
            for (Envelope event : sample.events) {
                event.weight = weight;
                out.event(event);
            }
        }
        out.substream(new SubstreamReport(end, nowMs, observed, sampled, sample == null ? 1.0 : sample.rate,
                sample == null ? 0 : sample.target, droppedLate));
        out.watermark(end - 1);
        processedUpTo = end;
    }

    public long droppedLate() {
        return droppedLate;
    }
}
