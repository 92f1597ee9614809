package io.klink.workloads.rides;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * AdCom's PI controller (seed adcom-edbt21.txt §3.2), pure: from the output-buffer utilisation ρ of every
 * combiner instance, one mini-batch interval λ for all of them, so they emit in step.
 *
 * <p>Error (§3.2, e(t)): with A_1..A_n the instances, e(t) = −(ρ_d − avg(ρ_A1..ρ_An)) if no instance is at
 * 100 %, else −(ρ_d − 1) (skew: one saturated instance is enough). ρ_d is a band [low, high] (§3.2: "the
 * desired min and max values of ρ_d", usually 50–80 % of the network buffers): inside it e(t) = 0 (no
 * correction); above it ρ_d = high, below it ρ_d = low; the saturated case uses high. e(t) > 0 (buffers too
 * full) lengthens the interval, so the combiner aggregates more; e(t) < 0 shortens it.
 *
 * <p>Update (Eq. 1 and 2): λ(t+1) = λ(t) + K_P·e(t) + K_I·Σ e(τ) over the last three periods (§3.2: "the three
 * last values of e(t)"), the integral taken with a step of one period. Eq. 2 as printed adds λ(t) twice (it
 * would double λ every period even at e = 0); we read it as the usual incremental PI form above. λ is kept in
 * [min, max] ms. The paper gives no values for K_P and K_I; ours are named options (RidesJob.Controller).
 */
public final class PiController {

    /** §3.2 integrates "the three last values of e(t)". */
    public static final int INTEGRAL_WINDOW = 3;
    /** Utilisation at or above this counts as 100 % (Flink reports buffers in use / pool size). */
    public static final double SATURATED = 0.999;

    public record Params(double bandLow, double bandHigh, double kp, double ki, long minIntervalMs,
                         long maxIntervalMs) {
        public Params {
            if (!(bandLow > 0 && bandLow <= bandHigh && bandHigh < 1)) {
                throw new IllegalArgumentException("the controller band must satisfy 0 < low <= high < 1, got ["
                        + bandLow + ", " + bandHigh + "]");
            }
            if (!(kp >= 0) || !(ki >= 0) || Double.isInfinite(kp) || Double.isInfinite(ki)) {
                throw new IllegalArgumentException("K_P and K_I must be finite and >= 0, got " + kp + ", " + ki);
            }
            if (minIntervalMs <= 0 || maxIntervalMs < minIntervalMs) {
                throw new IllegalArgumentException("the interval bounds must satisfy 0 < min <= max, got ["
                        + minIntervalMs + ", " + maxIntervalMs + "]");
            }
        }
    }

    /** One period's decision: the error and the interval every instance uses next. */
    public record Decision(double averageUtilisation, boolean saturated, double error, long intervalMs) {}

    private final Params params;
    private final Deque<Double> lastErrors = new ArrayDeque<>();
    private double intervalMs;

    public PiController(Params params, long initialIntervalMs) {
        this.params = params;
        this.intervalMs = clamp(initialIntervalMs);
    }

    public long intervalMs() {
        return Math.round(intervalMs);
    }

    /** §3.2 e(t) for the instances' utilisations (each in [0, 1]). */
    public static double error(double[] utilisation, double bandLow, double bandHigh) {
        if (utilisation.length == 0) {
            throw new IllegalArgumentException("no instance's utilisation");
        }
        double sum = 0;
        for (double rho : utilisation) {
            if (rho >= SATURATED) {
                return -(bandHigh - 1);
            }
            sum += rho;
        }
        double average = sum / utilisation.length;
        if (average > bandHigh) {
            return -(bandHigh - average);
        }
        if (average < bandLow) {
            return -(bandLow - average);
        }
        return 0;
    }

    /** One control period: e(t) from the utilisations, then λ(t+1) by Eq. 2 (as read above). */
    public Decision update(double[] utilisation) {
        double e = error(utilisation, params.bandLow(), params.bandHigh());
        lastErrors.addLast(e);
        if (lastErrors.size() > INTEGRAL_WINDOW) {
            lastErrors.removeFirst();
        }
        double integral = lastErrors.stream().mapToDouble(Double::doubleValue).sum();
        intervalMs = clamp(intervalMs + params.kp() * e + params.ki() * integral);
        double sum = 0;
        boolean saturated = false;
        for (double rho : utilisation) {
            sum += rho;
            saturated |= rho >= SATURATED;
        }
        return new Decision(sum / utilisation.length, saturated, e, intervalMs());
    }

    private double clamp(double ms) {
        return Math.max(params.minIntervalMs(), Math.min(params.maxIntervalMs(), ms));
    }
}
