package io.klink.sampler;

import java.util.List;
import java.util.function.Function;

/**
 * Every sampler, by the name {@code klinkctl bench --sampler} takes ({@code none}, no sampler operator, is
 * klinkctl's): the one declaration the build's catalog (klink-catalog) and klinkctl read.
 */
public final class Samplers {

    public record Sampler(String name, Function<SamplerConfig, StreamSampler> factory) {}

    public static final List<Sampler> ALL = List.of(
            new Sampler("aion", c -> new AionSampler(c, true)),
            new Sampler("aion-minus", c -> new AionSampler(c, false)),
            new Sampler("kslack", c -> new SlackSampler(c, false)),
            new Sampler("aq-kslack", c -> new SlackSampler(c, true)));

    public static final List<String> NAMES = ALL.stream().map(Sampler::name).toList();

    private Samplers() {}

    public static StreamSampler create(SamplerConfig config) {
        return ALL.stream().filter(s -> s.name().equals(config.kind())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "unknown sampler " + config.kind() + "; valid: " + NAMES))
                .factory().apply(config);
    }
}
