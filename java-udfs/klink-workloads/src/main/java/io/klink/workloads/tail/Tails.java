package io.klink.workloads.tail;

import java.util.List;

/**
 * The tail-latency techniques and baselines a per-record-latency pipeline runs with ({@code klinkctl bench
 * --tail}), each the exchange between its stages: the one declaration the catalog and klinkctl read.
 */
public final class Tails {

    public record Tail(String name, String description) {}

    public static final String NONE = "none";
    public static final String RESCALE = "rescale";
    public static final String ADAPTIVE = "adaptive";
    public static final String LATENCY_BALANCE = "latency-balance";
    public static final String REPLAY = "replay";
    public static final String REPLICATE = "replicate";
    public static final String SHARED_QUEUE = "shared-queue";

    public static final List<Tail> ALL = List.of(
            new Tail(NONE, "Flink's rebalance (round robin over every downstream task): the baseline"),
            new Tail(RESCALE, "Flink's rescale (round robin over a local subset of downstream tasks)"),
            new Tail(ADAPTIVE, "Flink 2.3's adaptive partitioner (FLIP-339): rebalance to the least backlogged of the "
                    + "next few downstream tasks"),
            new Tail(LATENCY_BALANCE, "latency-based load balancing, Du & Gupta Algorithm 2"),
            new Tail(REPLAY, "adaptive timeout with selective replay at the spout, Du & Gupta Algorithm 1 (rebalance)"),
            new Tail(REPLICATE, "blind replication of a fraction of the records at the spout (rebalance)"),
            new Tail(SHARED_QUEUE, "a stage's tasks in one TaskManager share one input queue, Du & Gupta §3.2 (rebalance)"));

    public static final List<String> NAMES = ALL.stream().map(Tail::name).toList();

    private Tails() {}
}
