package io.klink.generator;

import java.util.List;
import java.util.SplittableRandom;

/**
 * Inter-event generation gaps of a topic (thesis Ch. 4: the "inter-event generation delay"). Event
 * {@code k + 1} of a topic is generated one gap after event {@code k}; the mean gap is always
 * {@code 1 / rate}, so {@code --rate} stays the mean rate and the model only shapes how bursty it is.
 *
 * <p>{@code const}: the exact {@link Schedule} (every topic's event k at the same offset). {@code gamma:<k>}:
 * gaps ~ Gamma(k, θ = 1 / (k · rate)), each topic drawing from its own random stream; k = 2 at 1000
 * events/s is the thesis' Gamma(2, 0.5 ms).
 */
public interface Gaps {

    String EXPECTED = "expected const or gamma:<k> (e.g. gamma:2; the mean gap is 1/rate)";

    /** The gap models as the build's catalog lists them: name, form and example spec (each parsed by {@link #parse}). */
    record Kind(String name, String form, String example) {}

    List<Kind> KINDS = List.of(new Kind("const", "const", "const"), new Kind("gamma", "gamma:<k>", "gamma:2"));

    /** Offset (ns since the start) of event {@code k + 1} of a topic whose event {@code k} is at {@code offsetK}. */
    long nextOffsetNanos(long k, long offsetK, SplittableRandom rng);

    /** Same offsets for every topic and no randomness: generation order is then send order for constant delays. */
    boolean isRegular();

    String spec();

    static Gaps regular(Schedule schedule) {
        return new Regular(schedule);
    }

    /** @throws IllegalArgumentException naming the bad spec and the expected form */
    static Gaps parse(String spec, Schedule schedule) {
        String s = spec == null ? "" : spec.trim();
        if (s.equals("const")) {
            return regular(schedule);
        }
        if (s.startsWith("gamma:")) {
            double shape = RandomDelays.positive(s.substring("gamma:".length()), "gamma shape k");
            return new GammaGaps(shape, 1e9 / schedule.ratePerTopic() / shape);
        }
        throw new IllegalArgumentException("invalid inter-event gap spec '" + spec + "': " + EXPECTED);
    }

    record Regular(Schedule schedule) implements Gaps {
        @Override
        public long nextOffsetNanos(long k, long offsetK, SplittableRandom rng) {
            return schedule.offsetNanos(k + 1);
        }

        @Override
        public boolean isRegular() {
            return true;
        }

        @Override
        public String spec() {
            return "const";
        }
    }

    record GammaGaps(double shape, double scaleNanos) implements Gaps {
        @Override
        public long nextOffsetNanos(long k, long offsetK, SplittableRandom rng) {
            return offsetK + Math.round(scaleNanos * RandomDelays.Gamma.standardGamma(rng, shape));
        }

        @Override
        public boolean isRegular() {
            return false;
        }

        @Override
        public String spec() {
            return "gamma:" + RandomDelays.num(shape);
        }
    }
}
