package io.klink.scheduler.policy;

import io.klink.scheduler.SchedulingPolicy;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Creates policies by name (the names used on the command line and in result tables). */
public final class Policies {

    /** Every valid policy name. */
    public static final List<String> NAMES = List.of("default", "rr", "fcfs", "hr", "sbox", "klink", "klink-nomm");

    private Policies() {
    }

    /**
     * @param name   one of {@link #NAMES} (case-insensitive)
     * @param params parameters, see {@link PolicyConfig#parse}; unknown keys are ignored
     * @throws IllegalArgumentException for an unknown name (the message lists the valid ones) or a
     *                                  malformed / out-of-range parameter (the message names it)
     */
    public static SchedulingPolicy create(String name, Map<String, String> params) {
        return create(name, PolicyConfig.parse(params));
    }

    public static SchedulingPolicy create(String name, PolicyConfig config) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        switch (n) {
            case "default":
                return new DefaultPolicy();
            case "rr":
                return new RoundRobinPolicy(config.quantum());
            case "fcfs":
                return new FcfsPolicy(config.agingCycles());
            case "hr":
                return new HighestRatePolicy(config.agingCycles());
            case "sbox":
                return new StreamBoxPolicy(config.agingCycles());
            case "klink":
                return new KlinkPolicy(config, true);
            case "klink-nomm":
                return new KlinkPolicy(config, false);
            default:
                throw new IllegalArgumentException(
                        "unknown scheduling policy '" + name + "'; valid policies: " + String.join(", ", NAMES));
        }
    }
}
