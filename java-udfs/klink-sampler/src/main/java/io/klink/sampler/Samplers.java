package io.klink.sampler;

import java.util.List;

/** The samplers by name, as {@code klinkctl bench --sampler} takes them ({@code none}: no sampler operator). */
public final class Samplers {

    public static final List<String> NAMES = List.of("aion", "aion-minus", "kslack", "aq-kslack");

    private Samplers() {}

    public static StreamSampler create(SamplerConfig config) {
        return switch (config.kind()) {
            case "aion" -> new AionSampler(config, true);
            case "aion-minus" -> new AionSampler(config, false);
            case "kslack" -> new SlackSampler(config, false);
            case "aq-kslack" -> new SlackSampler(config, true);
            default -> throw new IllegalArgumentException("unknown sampler " + config.kind() + "; valid: " + NAMES);
        };
    }
}
