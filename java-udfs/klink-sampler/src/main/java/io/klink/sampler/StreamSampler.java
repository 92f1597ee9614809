package io.klink.sampler;

import io.klink.metrics.Envelope;

/**
 * A stream progress controller with optional sampling, run in front of a query's window (one per query):
 * it sees every data event as it is ingested, decides which reach the window (and with what weight), and
 * emits the watermarks — the source's own watermarks are replaced. One implementation per algorithm of
 * thesis §4.2.1: {@link AionSampler} (aion, aion-minus) and {@link SlackSampler} (kslack, aq-kslack).
 */
public interface StreamSampler {

    /** A data event arrives at wall time {@code nowMs}. */
    void onEvent(Envelope event, long nowMs, Output out);

    /** Wall time passes (called every few ms): emits what has become due. */
    void onTime(long nowMs, Output out);

    /** Event time {@code eventTime} has been reached without an event (the generator's end-of-run progress);
     *  samplers whose progress follows event time advance as for an event of that time. */
    default void onProgress(long eventTime, long nowMs, Output out) {
        onTime(nowMs, out);
    }

    /** Where a sampler's decisions go, in order. */
    interface Output {
        /** A data event for the window; {@link Envelope#weight} = the events it stands for. */
        void event(Envelope event);

        /** Every event with event time ≤ {@code watermark} has been emitted (or dropped). */
        void watermark(long watermark);

        /** A sub-stream was closed: what was observed and sampled. */
        void substream(SubstreamReport report);
    }
}
