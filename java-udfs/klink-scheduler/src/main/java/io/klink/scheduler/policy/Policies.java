package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulingPolicy;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Every scheduling policy, by the name used on the command line and in result tables: the one declaration
 * the build's catalog (klink-catalog) and klinkctl read.
 */
public final class Policies {

    /**
     * A policy: its name, the {@link PolicyConfig} keys it reads beyond the scheduler's own (r, C, cpu), and
     * how to make it.
     */
    public record Policy(String name, List<String> parameters, Function<PolicyConfig, SchedulingPolicy> factory) {}

    private static final List<String> AGING = List.of("age");
    private static final List<String> KLINK = List.of("h", "f", "b", "age", "mmcycles", "strict", "fill");

    /** The scheduler's parameters every policy runs under. */
    public static final List<String> SCHEDULER_PARAMETERS = List.of("r", "C", "cpu");

    public static final List<Policy> ALL = List.of(
            new Policy("default", List.of(), c -> new DefaultPolicy()),
            new Policy("rr", List.of("quantum"), c -> new RoundRobinPolicy(c.quantum())),
            new Policy("fcfs", AGING, c -> new FcfsPolicy(c.agingCycles())),
            new Policy("hr", AGING, c -> new HighestRatePolicy(c.agingCycles())),
            new Policy("sbox", AGING, c -> new StreamBoxPolicy(c.agingCycles())),
            new Policy("klink", KLINK, c -> new KlinkPolicy(c, true)),
            new Policy("klink-nomm", KLINK, c -> new KlinkPolicy(c, false)));

    /** Every valid policy name. */
    public static final List<String> NAMES = ALL.stream().map(Policy::name).toList();

    private Policies() {
    }

    /**
     * @param name   one of {@link #NAMES} (case-insensitive)
     * @param params parameters, see {@link PolicyConfig#parse}
     * @throws IllegalArgumentException for an unknown name (the message lists the valid ones) or a
     *                                  malformed / out-of-range parameter (the message names it)
     */
    public static SchedulingPolicy create(String name, Map<String, String> params) {
        return create(name, PolicyConfig.parse(params));
    }

    public static SchedulingPolicy create(String name, PolicyConfig config) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        return ALL.stream().filter(p -> p.name().equals(n)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "unknown scheduling policy '" + name + "'; valid policies: " + String.join(", ", NAMES)))
                .factory().apply(config);
    }
}
