package io.klink.generator;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The random network-delay models (DESIGN.md §4). Each samples a delay in ms as a double from the
 * topic's own random stream and rounds it to whole ms ({@link #toMillis}); each spec round-trips through
 * {@link DelayModels#parse}. Durations in specs take units (300ms, 1.5s); a bare number means ms.
 */
final class RandomDelays {

    /** Every delay model (the catalog's delayKinds): name, form, example, parser. */
    static final List<DelayModels.Kind> KINDS = List.of(
            new DelayModels.Kind("const", "const:<d>", "const:300ms", ConstantDelay::parseArgument),
            new DelayModels.Kind("uniform", "uniform:<low>-<high>", "uniform:0-2s", Uniform::parseArgument),
            new DelayModels.Kind("normal", "normal:<mean>:<sigma>", "normal:300ms:50ms", Normal::parseArgument),
            new DelayModels.Kind("exp", "exp:<mean>", "exp:240ms", Exponential::parseArgument),
            new DelayModels.Kind("gamma", "gamma:<k>:<theta>", "gamma:60:4ms", Gamma::parseArgument),
            new DelayModels.Kind("lognormal", "lognormal:<median>:<sigma>", "lognormal:200ms:0.5",
                    Lognormal::parseArgument),
            new DelayModels.Kind("pareto", "pareto:<scale>:<shape>", "pareto:100ms:2.5", Pareto::parseArgument),
            new DelayModels.Kind("zipf", "zipf:<s>:<low>-<high>", "zipf:0.99:0-2s", Zipf::parseArgument));

    private RandomDelays() {
    }

    /** Rounds a sampled delay to whole ms, never below 0. */
    static long toMillis(double ms) {
        return ms <= 0 ? 0 : Math.round(ms);
    }

    static String[] args(String argument, int count, String form) {
        String[] parts = argument.split(":", -1);
        if (parts.length != count) {
            throw new IllegalArgumentException("needs " + count + " argument(s): " + form);
        }
        return parts;
    }

    static double positive(String text, String what) {
        double v;
        try {
            v = Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " must be a number, got '" + text + "'");
        }
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(what + " must be > 0, got '" + text + "'");
        }
        return v;
    }

    static long millis(String text) {
        return Durations.parseMillis(text, "ms");
    }

    static long positiveMillis(String text, String what) {
        long ms = millis(text);
        if (ms <= 0) {
            throw new IllegalArgumentException(what + " must be > 0");
        }
        return ms;
    }

    /** {@code 0-2s}, {@code 100ms-1s}: a bare lower bound takes the upper bound's unit. */
    static long[] range(String text) {
        int dash = text.indexOf('-');
        if (dash <= 0 || dash == text.length() - 1) {
            throw new IllegalArgumentException("'" + text + "' is not a range like 0-2s or 100ms-500ms");
        }
        String lo = text.substring(0, dash).trim();
        String hi = text.substring(dash + 1).trim();
        String unit = hi.replaceAll("^[0-9.]+", "");
        long low = Durations.parseMillis(lo, unit.isEmpty() ? "ms" : unit);
        long high = millis(hi);
        if (low > high) {
            throw new IllegalArgumentException("range " + text + " has its lower end above its upper end");
        }
        return new long[]{low, high};
    }

    static String num(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }

    /** {@code uniform:<low>-<high>}, e.g. uniform:0-2s: every ms in [low, high] equally likely. */
    record Uniform(long lowMs, long highMs) implements DelayModel {
        static Uniform parseArgument(String a) {
            long[] r = range(a);
            return new Uniform(r[0], r[1]);
        }

        @Override
        public long sampleDelayMs(SplittableRandom rng) {
            return lowMs + rng.nextLong(highMs - lowMs + 1);
        }

        @Override
        public String spec() {
            return "uniform:" + Durations.format(lowMs) + "-" + Durations.format(highMs);
        }
    }

    /** {@code normal:<mean>:<sigma>}, truncated at 0 (negative samples are drawn again). */
    record Normal(long meanMs, long sigmaMs) implements DelayModel {
        static Normal parseArgument(String a) {
            String[] p = args(a, 2, "normal:<mean>:<sigma>, e.g. normal:300ms:50ms");
            return new Normal(millis(p[0]), positiveMillis(p[1], "sigma"));
        }

        @Override
        public long sampleDelayMs(SplittableRandom rng) {
            for (int attempt = 0; attempt < 1000; attempt++) {
                double x = meanMs + sigmaMs * rng.nextGaussian();
                if (x >= 0) {
                    return toMillis(x);
                }
            }
            return 0; // mean many sigmas below 0: practically all mass at 0
        }

        @Override
        public String spec() {
            return "normal:" + Durations.format(meanMs) + ":" + Durations.format(sigmaMs);
        }
    }

    /** {@code exp:<mean>}, e.g. exp:240ms (the thesis' EC/EG network delay). */
    record Exponential(long meanMs) implements DelayModel {
        static Exponential parseArgument(String a) {
            return new Exponential(positiveMillis(args(a, 1, "exp:<mean>, e.g. exp:240ms")[0], "mean"));
        }

        @Override
        public long sampleDelayMs(SplittableRandom rng) {
            return toMillis(meanMs * rng.nextExponential());
        }

        @Override
        public String spec() {
            return "exp:" + Durations.format(meanMs);
        }
    }

    /** {@code gamma:<k>:<theta>}, shape k and scale θ, e.g. gamma:60:4ms (the thesis' GG, mean 240 ms). */
    record Gamma(double shape, double scaleMs) implements DelayModel {
        static Gamma parseArgument(String a) {
            String[] p = args(a, 2, "gamma:<k>:<theta>, e.g. gamma:60:4ms");
            return new Gamma(positive(p[0], "k"), positive(p[1].replaceAll("ms$", ""), "theta (ms)"));
        }

        @Override
        public long sampleDelayMs(SplittableRandom rng) {
            return toMillis(scaleMs * standardGamma(rng, shape));
        }

        /** Marsaglia & Tsang (2000); shape < 1 by the boost Gamma(k) = Gamma(k + 1) · U^(1/k). */
        static double standardGamma(SplittableRandom rng, double k) {
            if (k < 1) {
                return standardGamma(rng, k + 1) * Math.pow(rng.nextDouble(), 1.0 / k);
            }
            double d = k - 1.0 / 3.0;
            double c = 1.0 / Math.sqrt(9.0 * d);
            while (true) {
                double x = rng.nextGaussian();
                double v = 1.0 + c * x;
                if (v <= 0) {
                    continue;
                }
                v = v * v * v;
                double u = rng.nextDouble();
                if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) {
                    return d * v;
                }
            }
        }

        @Override
        public String spec() {
            return "gamma:" + num(shape) + ":" + num(scaleMs) + "ms";
        }
    }

    /** {@code lognormal:<median>:<sigma>}: ln(delay) ~ Normal(ln(median), sigma), e.g. lognormal:200ms:0.5. */
    record Lognormal(long medianMs, double sigma) implements DelayModel {
        static Lognormal parseArgument(String a) {
            String[] p = args(a, 2, "lognormal:<median>:<sigma>, e.g. lognormal:200ms:0.5");
            return new Lognormal(positiveMillis(p[0], "median"), positive(p[1], "sigma"));
        }

        @Override
        public long sampleDelayMs(SplittableRandom rng) {
            return toMillis(medianMs * Math.exp(sigma * rng.nextGaussian()));
        }

        @Override
        public String spec() {
            return "lognormal:" + Durations.format(medianMs) + ":" + num(sigma);
        }
    }

    /** {@code pareto:<scale>:<shape>}: P(delay > x) = (scale / x)^shape for x ≥ scale, e.g. pareto:100ms:2.5. */
    record Pareto(long scaleMs, double shape) implements DelayModel {
        static Pareto parseArgument(String a) {
            String[] p = args(a, 2, "pareto:<scale>:<shape>, e.g. pareto:100ms:2.5");
            return new Pareto(positiveMillis(p[0], "scale"), positive(p[1], "shape"));
        }

        @Override
        public long sampleDelayMs(SplittableRandom rng) {
            return toMillis(scaleMs / Math.pow(1.0 - rng.nextDouble(), 1.0 / shape));
        }

        @Override
        public String spec() {
            return "pareto:" + Durations.format(scaleMs) + ":" + num(shape);
        }
    }

    /**
     * {@code zipf:<s>:<low>-<high>}: delay = low + i ms with P(i) ∝ 1/(i + 1)^s, i = 0..high−low
     * (the Klink paper's network delays use s = 0.99). Sampled by binary search in the precomputed CDF.
     */
    static final class Zipf implements DelayModel {
        private final double exponent;
        private final long lowMs;
        private final long highMs;
        private final double[] cdf;

        Zipf(double exponent, long lowMs, long highMs) {
            if (highMs - lowMs > 10_000_000) {
                throw new IllegalArgumentException("zipf range wider than 10 000 s");
            }
            this.exponent = exponent;
            this.lowMs = lowMs;
            this.highMs = highMs;
            this.cdf = new double[(int) (highMs - lowMs + 1)];
            double sum = 0;
            for (int i = 0; i < cdf.length; i++) {
                sum += 1.0 / Math.pow(i + 1, exponent);
                cdf[i] = sum;
            }
            for (int i = 0; i < cdf.length; i++) {
                cdf[i] /= sum;
            }
        }

        static Zipf parseArgument(String a) {
            String[] p = args(a, 2, "zipf:<s>:<low>-<high>, e.g. zipf:0.99:0-2s");
            long[] r = range(p[1]);
            return new Zipf(positive(p[0], "s"), r[0], r[1]);
        }

        @Override
        public long sampleDelayMs(SplittableRandom rng) {
            int i = Arrays.binarySearch(cdf, rng.nextDouble());
            return lowMs + (i >= 0 ? i : Math.min(-i - 1, cdf.length - 1));
        }

        @Override
        public String spec() {
            return "zipf:" + num(exponent) + ":" + Durations.format(lowMs) + "-" + Durations.format(highMs);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Zipf z && z.exponent == exponent && z.lowMs == lowMs && z.highMs == highMs;
        }

        @Override
        public int hashCode() {
            return spec().hashCode();
        }
    }
}
