package io.klink.generator;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the rate changes over a run: {@code --rate} times a multiplier m(t) that is piecewise linear in the run's
 * time t. {@code steady}: m = 1. {@code surge:<k>x@<start>+<length>}: m = k from start for length, 1 elsewhere.
 * {@code bursts:<k>x@<period>+<length>}: m = k in the first length of every period, 1 elsewhere (periodic: its
 * segments describe one period, and W and W⁻¹ step over whole periods in O(1)).
 * {@code ramp:<k>x}: m grows linearly from 1 at the start to k at the end of the run (and stays k after it).
 *
 * <p>It acts as a time warp on the base schedule: with W(t) = ∫₀ᵗ m, the event that the base rate's gap model
 * puts at offset u is generated at W⁻¹(u). So every gap model ({@link Gaps}) and every workload gets the schedule,
 * and an event's scheduled send time (which the lag statistics judge) follows the scheduled rate, not the base.
 */
public final class RateSchedule {

    public static final String EXPECTED = "expected steady, surge:<k>x@<start>+<length> (k x the rate from start "
            + "for length, e.g. surge:4x@10s+10s), bursts:<k>x@<period>+<length> (k x the rate in the first length "
            + "of every period, e.g. bursts:3x@10s+2s) or ramp:<k>x (linear from the rate to k x the rate over the "
            + "run, e.g. ramp:4x); durations need a unit";
    /** The forms as the build's catalog lists them: name, form and example spec (each parsed by {@link #parse}). */
    public static final List<Gaps.Kind> KINDS = List.of(new Gaps.Kind("steady", "steady", "steady"),
            new Gaps.Kind("surge", "surge:<k>x@<start>+<length>", "surge:4x@10s+10s"),
            new Gaps.Kind("ramp", "ramp:<k>x", "ramp:4x"),
            new Gaps.Kind("bursts", "bursts:<k>x@<period>+<length>", "bursts:3x@10s+2s"));
    /** Largest factor k: keeps rate x k far inside {@link Schedule#MAX_RATE} for any sane rate. */
    public static final double MAX_FACTOR = 1000;

    /** surge:<k>x@<start>+<length> and bursts:<k>x@<period>+<length>. */
    private static final Pattern WINDOWED = Pattern.compile("(surge|bursts):([^@+]+)x@([^@+]+)\\+([^@+]+)");
    private static final Pattern RAMP = Pattern.compile("ramp:([^@+]+)x");
    private static final double MS = 1e6;

    private final String spec;
    /** Segment i starts at {@code starts[i]} ns with multiplier {@code a[i]} and slope {@code b[i]} per ns. */
    private final double[] starts;
    private final double[] a;
    private final double[] b;
    /** W at each segment's start, base-rate ns. */
    private final double[] warped;
    /** A periodic schedule's period, ns (its segments repeat every period), else 0. */
    private final long period;
    /** W over one period, base-rate ns (periodic schedules only). */
    private final double periodBase;

    private RateSchedule(String spec, double[] starts, double[] a, double[] b, long period) {
        this.spec = spec;
        this.starts = starts;
        this.a = a;
        this.b = b;
        this.period = period;
        this.warped = new double[starts.length];
        for (int i = 1; i < starts.length; i++) {
            warped[i] = warped[i - 1] + integral(i - 1, starts[i] - starts[i - 1]);
        }
        int last = starts.length - 1;
        this.periodBase = period == 0 ? 0 : warped[last] + integral(last, period - starts[last]);
    }

    public static final RateSchedule STEADY = new RateSchedule("steady", new double[] {0}, new double[] {1},
            new double[] {0}, 0);

    /**
     * @param durationMs the run's generation time: a surge must end within it, a ramp spans it
     * @throws IllegalArgumentException one line naming the bad spec and the expected form
     */
    public static RateSchedule parse(String text, long durationMs) {
        String s = text == null ? "" : text.trim();
        if (s.equals("steady")) {
            return STEADY;
        }
        Matcher windowed = WINDOWED.matcher(s);
        if (windowed.matches()) {
            return windowed(windowed.group(1), factor(windowed.group(2), s), duration(windowed.group(3), s),
                    duration(windowed.group(4), s), s, durationMs);
        }
        Matcher ramp = RAMP.matcher(s);
        if (ramp.matches()) {
            double k = factor(ramp.group(1), s);
            double end = durationMs * MS;
            return new RateSchedule("ramp:" + RandomDelays.num(k) + "x", new double[] {0, end},
                    new double[] {1, k}, new double[] {(k - 1) / end, 0}, 0);
        }
        throw new IllegalArgumentException("invalid rate schedule '" + text + "': " + EXPECTED);
    }

    /**
     * A surge (k x the rate from {@code at} for {@code length} ms) or bursts (k x the rate for the first
     * {@code length} ms of every {@code at} ms).
     */
    private static RateSchedule windowed(String kind, double k, long at, long length, String s, long durationMs) {
        boolean bursts = kind.equals("bursts");
        if (length <= 0) {
            throw new IllegalArgumentException("rate schedule '" + s + "': the " + (bursts ? "burst" : kind)
                    + "'s length must be > 0");
        }
        String canonical = kind + ":" + RandomDelays.num(k) + "x@" + Durations.format(at) + "+"
                + Durations.format(length);
        if (bursts) {
            if (at <= length) {
                throw new IllegalArgumentException("rate schedule '" + s + "': the period (" + Durations.format(at)
                        + ") must be longer than the burst (" + Durations.format(length) + ")");
            }
            return new RateSchedule(canonical, new double[] {0, length * MS}, new double[] {k, 1},
                    new double[] {0, 0}, at * 1_000_000L);
        }
        if (at + length > durationMs) {
            throw new IllegalArgumentException("rate schedule '" + s + "': the surge ends at "
                    + Durations.format(at + length) + ", after the run's " + Durations.format(durationMs));
        }
        return new RateSchedule(canonical, new double[] {0, at * MS, (at + length) * MS},
                new double[] {1, k, 1}, new double[] {0, 0, 0}, 0);
    }

    private static double factor(String text, String spec) {
        double k;
        try {
            k = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            k = Double.NaN;
        }
        if (!(k > 0 && k <= MAX_FACTOR) || !text.matches("[0-9.]+")) {
            throw new IllegalArgumentException("rate schedule '" + spec + "': the factor must be a number in (0, "
                    + RandomDelays.num(MAX_FACTOR) + "] followed by x, got '" + text + "x'");
        }
        return k;
    }

    private static long duration(String text, String spec) {
        if (!text.equals("0") && !text.matches(".*[a-z]")) {
            throw new IllegalArgumentException("rate schedule '" + spec + "': '" + text
                    + "' has no unit; write e.g. 10s or 500ms");
        }
        try {
            return Durations.parseMillis(text, "ms");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("rate schedule '" + spec + "': " + e.getMessage());
        }
    }

    public String spec() {
        return spec;
    }

    public boolean isSteady() {
        return this == STEADY;
    }

    /** The multiplier m(t) at {@code nanos} since the start. */
    public double multiplier(long nanos) {
        long phase = nanos - periods(nanos) * period;
        int i = segment(phase, starts);
        return a[i] + b[i] * (phase - starts[i]);
    }

    /** The largest multiplier anywhere in the schedule (a piecewise-linear one peaks at a segment's end). */
    public double peakMultiplier() {
        double peak = 0;
        for (int i = 0; i < starts.length; i++) {
            peak = Math.max(peak, a[i]);
            if (i + 1 < starts.length) {
                peak = Math.max(peak, a[i] + b[i] * (starts[i + 1] - starts[i]));
            }
        }
        return peak;
    }

    /** W(t): the base-rate time, ns, that the schedule has gone through by {@code nanos} since the start. */
    public long toBase(long nanos) {
        long n = periods(nanos);
        long phase = nanos - n * period;
        int i = segment(phase, starts);
        return Math.round(n * periodBase + warped[i] + integral(i, phase - starts[i]));
    }

    /** W⁻¹(u): when the schedule reaches base-rate time {@code baseNanos}, ns since the start. */
    public long toReal(long baseNanos) {
        if (this == STEADY) {
            return baseNanos;
        }
        double n = period == 0 ? 0 : Math.floor(baseNanos / periodBase);
        double phase = baseNanos - n * periodBase;
        int i = segment(phase, warped);
        double u = phase - warped[i];
        double x = b[i] == 0 ? u / a[i] : (Math.sqrt(a[i] * a[i] + 2 * b[i] * u) - a[i]) / b[i];
        return Math.round(n * period + starts[i] + x);
    }

    /** The whole periods before {@code nanos} (0 for a schedule that is not periodic). */
    private long periods(long nanos) {
        return period == 0 ? 0 : Math.floorDiv(nanos, period);
    }

    /** ∫ m over the first {@code x} ns of segment {@code i}. */
    private double integral(int i, double x) {
        return a[i] * x + b[i] * x * x / 2;
    }

    /** The mean multiplier over the first {@code durationMs}: the run's mean rate over {@code --rate}. */
    public double meanMultiplier(long durationMs) {
        return durationMs <= 0 ? 1.0 : toBase(durationMs * 1_000_000L) / (durationMs * MS);
    }

    /** The base gap model {@code gaps}, its events moved to the times this schedule gives them. */
    public Gaps warp(Gaps gaps) {
        return this == STEADY ? gaps : new Warped(gaps, this);
    }

    private static int segment(double t, double[] bounds) {
        int i = bounds.length - 1;
        while (i > 0 && t < bounds[i]) {
            i--;
        }
        return i;
    }

    /** A gap model whose offsets are base-rate offsets mapped through W⁻¹. */
    record Warped(Gaps base, RateSchedule rates) implements Gaps {
        @Override
        public long nextOffsetNanos(long k, long offsetK, java.util.SplittableRandom rng) {
            return rates.toReal(base.nextOffsetNanos(k, rates.toBase(offsetK), rng));
        }

        @Override
        public boolean isRegular() {
            return base.isRegular();
        }

        @Override
        public String spec() {
            return base.spec();
        }
    }
}
