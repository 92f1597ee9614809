package io.klink.scheduler.policy;

/**
 * Klink's math (Farhat, Daudjee and Querzoni, "Klink: Progress-Aware Scheduling for Streaming Data Systems",
 * SIGMOD '21, §3; thesis Ch. 3, Eq. 3.1-3.10, Alg. 1-3) in one place, free of any runtime state so
 * that every formula can be checked against hand-computed values.
 *
 * <p>Units: times in ms (wall clock and event time share one axis: event time is the intended
 * generation wall time), costs in ms unless a name says ns.
 *
 * <p>Ambiguities of the paper, and what this class does (each also noted at the method):
 * <ul>
 *   <li>Eq. 9 reads "P(x ≤ w ≤ x+r | t) = … if x ≤ t, 0 otherwise". Conditioning on w ≥ t only makes
 *       sense for slices at or after t, and Alg. 1 starts at x = max(t, t_min); we use x ≥ t.</li>
 *   <li>Eq. 10 divides by Var(w); a standard normal argument needs the standard deviation σ.</li>
 *   <li>Eq. 6 is the variance of a <em>mean</em> of h epochs (it shrinks as 1/h): with h = 400 its
 *       [t_min, t_max] would cover far fewer than f of the SWMs. {@link #varianceEq6} implements it
 *       literally; the estimator uses {@link #pooledVariance} (E[χ] − E[μ]², the variance of one
 *       new epoch's delay), whose interval has the stated coverage f. See {@link KlinkEstimator}.</li>
 *   <li>Alg. 1 uses ±2σ for "≥ 95 %"; we use ±z·σ with z = Q⁻¹((1 − f)/2) so that any f works
 *       (z = 1.95996 for f = 0.95).</li>
 * </ul>
 */
public final class KlinkMath {

    private static final double SQRT_PI = Math.sqrt(Math.PI);
    private static final double SQRT_2 = Math.sqrt(2.0);
    /** Below this |x| erfc is 1 − erf with erf from its power series; above, a continued fraction. */
    private static final double SERIES_LIMIT = 2.5;

    private KlinkMath() {
    }

    // ---------------------------------------------------------------- Gaussian tail

    /**
     * Complementary error function.
     *
     * <p>Method (no table of fitted constants): for 0 ≤ x &lt; 2.5, erfc(x) = 1 − erf(x) with
     * erf(x) = (2/√π)·e^(−x²)·Σₙ 2ⁿx^(2n+1)/(1·3·…·(2n+1)) (Abramowitz &amp; Stegun 7.1.6; every term is
     * positive, so there is no cancellation inside the sum); for x ≥ 2.5 the Laplace continued
     * fraction erfc(x) = e^(−x²)/√π · 1/(x + ½/(x + 1/(x + (3/2)/(x + …)))) (A&amp;S 7.1.14), evaluated with
     * the modified Lentz method; erfc(−x) = 2 − erfc(x). Relative error &lt; 2e-12 on [−6, 27]
     * (checked against a reference implementation), far below the required 1e-7. At most ≈40 terms or
     * iterations per call.
     */
    public static double erfc(double x) {
        if (Double.isNaN(x)) {
            return Double.NaN;
        }
        if (x < 0) {
            return 2.0 - erfc(-x);
        }
        if (x < SERIES_LIMIT) {
            double x2 = x * x;
            double term = x;
            double sum = x;
            for (int n = 1; n < 200 && term > 1e-17 * sum; n++) {
                term *= 2.0 * x2 / (2 * n + 1);
                sum += term;
            }
            return 1.0 - 2.0 / SQRT_PI * Math.exp(-x2) * sum;
        }
        if (x > 27.3) {
            return 0.0; // e^(-x²) underflows
        }
        // Modified Lentz for x + a1/(x + a2/(x + ...)), a_k = k/2.
        final double tiny = 1e-300;
        double f = x;
        double c = f;
        double d = 0.0;
        for (int k = 1; k < 500; k++) {
            double a = 0.5 * k;
            d = x + a * d;
            d = d == 0.0 ? 1.0 / tiny : 1.0 / d;
            c = x + a / c;
            if (c == 0.0) {
                c = tiny;
            }
            double delta = c * d;
            f *= delta;
            if (Math.abs(delta - 1.0) < 1e-16) {
                break;
            }
        }
        return Math.exp(-x * x) / (SQRT_PI * f);
    }

    /** Gaussian Q-function, the standard normal tail P(Z &gt; x) = ½·erfc(x/√2) (used in Eq. 10). */
    public static double q(double x) {
        return 0.5 * erfc(x / SQRT_2);
    }

    /** Inverse of {@link #q}: the x with Q(x) = p, for 0 &lt; p &lt; 1 (bisection on the monotone Q). */
    public static double inverseQ(double p) {
        if (!(p > 0.0 && p < 1.0)) {
            throw new IllegalArgumentException("inverseQ needs 0 < p < 1, got " + p);
        }
        double lo = -40.0;
        double hi = 40.0;
        for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
            double mid = 0.5 * (lo + hi);
            if (q(mid) > p) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return 0.5 * (lo + hi);
    }

    /**
     * Half-width of a two-sided confidence-f interval in standard deviations, z = Q⁻¹((1 − f)/2)
     * (Eq. 7; 1.95996 for f = 0.95, where Alg. 1 line 5-6 rounds to 2).
     */
    public static double zForConfidence(double f) {
        if (!(f > 0.0 && f < 1.0)) {
            throw new IllegalArgumentException("confidence f must be in (0, 1), got " + f);
        }
        return inverseQ((1.0 - f) / 2.0);
    }

    // ---------------------------------------------------------------- SWM ingestion estimate

    /**
     * Eq. 3/4 "otherwise" branch and Alg. 1 line 2: the average of per-epoch values over the history,
     * e.g. μ_n = (1/h)·Σ μ_i. Returns 0 for an empty history.
     */
    public static double mean(double[] values) {
        if (values.length == 0) {
            return 0.0;
        }
        double s = 0.0;
        for (double v : values) {
            s += v;
        }
        return s / values.length;
    }

    /**
     * Eq. 6 exactly as printed, with N = n − 1 = the number of epochs in the history:
     * Var[w] = (1/N)·[χ̄ + (1/N)·Σ_{i≠j} μ_i μ_j] − μ̄², where χ̄ and μ̄ are the history averages.
     * Algebraically this is (1/N)·(χ̄ − (1/N)Σμ_i²) = (1/N²)·Σ(χ_i − μ_i²): the variance of the mean of
     * N independent epoch delays. Σ_{i≠j} μ_iμ_j is computed as (Σμ)² − Σμ² (O(N)).
     */
    public static double varianceEq6(double[] mu, double[] chi) {
        if (mu.length != chi.length) {
            throw new IllegalArgumentException("mu and chi must have equal length");
        }
        int n = mu.length;
        if (n == 0) {
            return 0.0;
        }
        double sumMu = 0.0;
        double sumMu2 = 0.0;
        double sumChi = 0.0;
        for (int i = 0; i < n; i++) {
            sumMu += mu[i];
            sumMu2 += mu[i] * mu[i];
            sumChi += chi[i];
        }
        return varianceEq6(n, sumMu, sumMu2, sumChi);
    }

    /** {@link #varianceEq6(double[], double[])} from running sums Σμ, Σμ², Σχ over N epochs (O(1)). */
    public static double varianceEq6(int n, double sumMu, double sumMu2, double sumChi) {
        if (n == 0) {
            return 0.0;
        }
        double chiBar = sumChi / n;
        double muBar = sumMu / n;
        double crossTerms = sumMu * sumMu - sumMu2; // Σ_{i≠j} μ_i μ_j
        return Math.max(0.0, (chiBar + crossTerms / n) / n - muBar * muBar);
    }

    /**
     * Predictive (pooled) variance of one new epoch's delay: χ̄ − μ̄² (E[d²] − E[d]² over all epochs of
     * the history). This is the variance the estimator uses for w_{n+1} (see the class comment on Eq. 6).
     */
    public static double pooledVariance(double muBar, double chiBar) {
        return Math.max(0.0, chiBar - muBar * muBar);
    }

    /**
     * Eq. 7: the interval [t_min, t_max] that holds the Normal(mean, σ²) SWM ingestion time with
     * probability f: mean ∓ z·σ (Alg. 1 lines 5-6 with z = Q⁻¹((1 − f)/2) instead of 2).
     *
     * @return {t_min, t_max}
     */
    public static double[] confidenceInterval(double mean, double sigma, double f) {
        double half = zForConfidence(f) * sigma;
        return new double[] {mean - half, mean + half};
    }

    // ---------------------------------------------------------------- slack

    /** Eq. 1: sl(t) = (w − t) − cost(t), for a known (or assumed) SWM ingestion time w. */
    public static double slack(double w, double t, double cost) {
        return (w - t) - cost;
    }

    /**
     * Eq. 10: P(x ≤ w ≤ x + r) = Q((x − E)/σ) − Q((x + r − E)/σ) for w ~ Normal(E, σ²) — the paper's
     * Q((E − (x+r))/·) − Q((E − x)/·) rewritten with Q(−a) = 1 − Q(a), and σ where the paper prints Var.
     * σ = 0 is the limit of a point mass at E: 1 if x ≤ E ≤ x + r, else 0.
     */
    public static double sliceProbability(double x, double r, double mean, double sigma) {
        if (sigma <= 0.0) {
            return (x <= mean && mean <= x + r) ? 1.0 : 0.0;
        }
        return q((x - mean) / sigma) - q((x + r - mean) / sigma);
    }

    /**
     * Eq. 9: P(x ≤ w ≤ x + r | w ≥ t) = P(x ≤ w ≤ x + r) / P(w ≥ t) for slices starting at or after t,
     * 0 for slices starting before t (the paper prints "if x ≤ t"; with the conditioning on w ≥ t and
     * Alg. 1's x = max(t, t_min) the slice must start at or after t).
     */
    public static double conditionalSliceProbability(double x, double r, double t, double mean, double sigma) {
        if (x < t) {
            return 0.0;
        }
        double pAfterT = sigma <= 0.0 ? (mean >= t ? 1.0 : 0.0) : q((t - mean) / sigma);
        if (pAfterT <= 0.0) {
            return 0.0;
        }
        return sliceProbability(x, r, mean, sigma) / pAfterT;
    }

    /**
     * Eq. 8 / Alg. 1 ComputeExpectedSlack: sl(t) = Σ_{x = max(t, t_min); x ≤ t_max; x += r}
     * P(x ≤ w ≤ x + r | t) · ((x + r − t) − cost), w ~ Normal(mean, σ²).
     *
     * <p>Literal choices: the sum is not renormalised (slices outside [t_min, t_max] are dropped, so
     * the weights add up to about f / P(w ≥ t)); the last slice may end after t_max; if t &gt; t_max
     * the sum is empty and the result is 0, as in Alg. 1 (callers handle that "overdue" case with
     * Eq. 1, see {@link KlinkPolicy}). Each Q value is computed once and shared by adjacent slices.
     */
    public static double expectedSlack(double t, double mean, double sigma, double tMin, double tMax,
                                       double r, double cost) {
        if (!(r > 0.0)) {
            throw new IllegalArgumentException("r must be > 0, got " + r);
        }
        double x = Math.max(t, tMin);
        if (x > tMax) {
            return 0.0;
        }
        if (sigma <= 0.0) {
            double sl = 0.0;
            for (; x <= tMax; x += r) {
                sl += conditionalSliceProbability(x, r, t, mean, sigma) * ((x + r - t) - cost);
            }
            return sl;
        }
        double pAfterT = q((t - mean) / sigma);
        if (pAfterT <= 0.0) {
            return 0.0;
        }
        double sl = 0.0;
        double qLow = q((x - mean) / sigma);
        for (; x <= tMax; x += r) {
            double qHigh = q((x + r - mean) / sigma);
            double pr = (qLow - qHigh) / pAfterT;
            sl += pr * ((x + r - t) - cost);
            qLow = qHigh;
        }
        return sl;
    }

    /** §3.3: the slack of a join is the minimum of its inputs' slacks. */
    public static double joinSlack(double... inputSlacks) {
        if (inputSlacks.length == 0) {
            throw new IllegalArgumentException("a join needs at least one input slack");
        }
        double min = Double.POSITIVE_INFINITY;
        for (double s : inputSlacks) {
            min = Math.min(min, s);
        }
        return min;
    }

    // ---------------------------------------------------------------- cost and memory

    /**
     * cost^q(t) (§3, "the total number of events queued, and the cost of executing them end-to-end"):
     * the CPU time to drain every queue of a pipeline. Stage k receives its own queue plus what the
     * upstream queues become after the selectivities in between:
     * n_k = Σ_{j ≤ k} queued_j · Π_{j ≤ i &lt; k} S_i, and cost = Σ_k n_k · c_k.
     *
     * @param queued     records queued per stage, upstream first
     * @param costNs     mean cost per record per stage, ns
     * @param selectivity output/input per stage
     * @return the cost in ns
     */
    public static double drainCostNs(long[] queued, double[] costNs, double[] selectivity) {
        checkLengths(queued, costNs, selectivity);
        double arriving = 0.0; // records that will reach the current stage from upstream
        double total = 0.0;
        for (int k = 0; k < queued.length; k++) {
            double n = arriving + queued[k];
            total += n * costNs[k];
            arriving = n * selectivity[k];
        }
        return total;
    }

    /**
     * §3.4: for each prefix of the non-source part of a pipeline (stage 1 .. k), the number of queued
     * events that processing it would remove: p_k = min(sz_k, n_r,k) · (1 − Π_{i=1..k} S_i), with sz_k the
     * events queued from the first non-source stage to k and n_r,k = r / (per-event cost from stage 1 to k)
     * the events one core can push through stages 1..k within a cycle of r ms ("Klink computes the number
     * of events that can be processed within r by factoring in the cost of each operator"); an unknown
     * (zero) cost leaves the count uncapped.
     *
     * @param queued      records queued per non-source stage, upstream first
     * @param costNs      mean cost per record per stage, ns
     * @param selectivity output/input per stage
     * @param rMs         cycle length r, ms
     * @return p_k for k = 1..m (index k−1)
     */
    public static double[] memoryRelief(long[] queued, double[] costNs, double[] selectivity, double rMs) {
        checkLengths(queued, costNs, selectivity);
        double[] p = new double[queued.length];
        double sz = 0.0;
        double product = 1.0;     // Π_{i ≤ k} S_i
        double perEventNs = 0.0;  // Σ_{i ≤ k} c_i Π_{j < i} S_j
        double reach = 1.0;       // Π_{j < k} S_j
        for (int k = 0; k < queued.length; k++) {
            sz += queued[k];
            perEventNs += costNs[k] * reach;
            reach *= selectivity[k];
            product *= selectivity[k];
            double processable = perEventNs > 0.0 ? rMs * 1e6 / perEventNs : Double.POSITIVE_INFINITY;
            p[k] = Math.min(sz, processable) * Math.max(0.0, 1.0 - product);
        }
        return p;
    }

    private static void checkLengths(long[] a, double[] b, double[] c) {
        if (a.length != b.length || a.length != c.length) {
            throw new IllegalArgumentException("per-stage arrays must have equal length");
        }
    }
}
