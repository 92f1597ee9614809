package io.klink.sampler;

/**
 * One closed sub-stream: its end (event time), when it was closed (wall time), the events observed by then,
 * how many went to the window, the sampling rate θ and target sample size it was planned with (0 = none),
 * and the stragglers the sampler has dropped so far (events whose sub-stream was already processed).
 */
public record SubstreamReport(long end, long closedAt, long observed, long sampled, double rate, double target,
                              long droppedLate) {}
