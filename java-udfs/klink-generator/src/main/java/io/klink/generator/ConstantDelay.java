package io.klink.generator;

import java.util.SplittableRandom;

/** Every event is delayed by the same amount ({@code const:300ms}); consumes no randomness. */
public record ConstantDelay(long delayMs) implements DelayModel {

    public ConstantDelay {
        if (delayMs < 0) {
            throw new IllegalArgumentException("constant delay must be >= 0 ms, got " + delayMs);
        }
    }

    /** Parses the argument part of {@code const:<duration>}; a bare number means milliseconds. */
    static ConstantDelay parseArgument(String argument) {
        return new ConstantDelay(Durations.parseMillis(argument, "ms"));
    }

    @Override
    public long sampleDelayMs(SplittableRandom rng) {
        return delayMs;
    }

    @Override
    public boolean isConstant() {
        return true;
    }

    @Override
    public String spec() {
        return "const:" + Durations.format(delayMs);
    }
}
