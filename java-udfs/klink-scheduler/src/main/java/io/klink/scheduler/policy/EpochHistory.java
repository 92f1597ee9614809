package io.klink.scheduler.policy;

/**
 * Per-stream epoch statistics of Klink (§3.1, Eq. 3-4; thesis Alg. 2 "epoch-control").
 *
 * <p>An epoch ends with an SWM. While an epoch is open, {@link #add} accumulates its delay samples
 * (Alg. 2 ProcessEvent: Σd and Σd²). {@link #closeEpoch} finalises μ_n = Σd/|D_n| and
 * χ_n = Σd²/|D_n| (Alg. 2 NextEpoch, Eq. 3-4 first branch) and pushes them into a ring buffer of the
 * last h epochs, dropping the oldest (Alg. 2 line 8, "D^q \ D^q_{n−m}"). The history averages μ̄, χ̄
 * (Eq. 3-4 second branch, Alg. 1 line 2) come from running sums, so every operation is O(1). The
 * running sums are recomputed from the buffer once per h pushes so that floating-point drift from
 * repeated add/subtract cannot accumulate.
 *
 * <p>Which "delay" is sampled is the caller's choice; {@link KlinkPolicy} samples the ingestion
 * watermark lag (see there). An epoch without samples is not pushed.
 */
public final class EpochHistory {

    private final int capacity;
    private final double[] mu;
    private final double[] chi;
    private int size;
    private int next;           // ring position of the next push
    private int pushesSinceResum;
    private double sumMu;
    private double sumMu2;
    private double sumChi;

    private long openCount;
    private double openSum;
    private double openSumSq;

    /** @param h the number of epochs kept (&gt;= 1; the paper uses 400) */
    public EpochHistory(int h) {
        if (h < 1) {
            throw new IllegalArgumentException("history h must be >= 1, got " + h);
        }
        this.capacity = h;
        this.mu = new double[h];
        this.chi = new double[h];
    }

    /** Alg. 2 ProcessEvent: one delay sample (ms) of the open epoch. Non-finite samples are ignored. */
    public void add(double delay) {
        if (!Double.isFinite(delay)) {
            return;
        }
        openCount++;
        openSum += delay;
        openSumSq += delay * delay;
    }

    /** Number of samples in the open epoch. */
    public long openSamples() {
        return openCount;
    }

    /**
     * Alg. 2 NextEpoch: finalises the open epoch (if it has samples) and starts a new one.
     *
     * @return true if an epoch was pushed
     */
    public boolean closeEpoch() {
        if (openCount == 0) {
            return false;
        }
        addEpoch(openSum / openCount, openSumSq / openCount);
        openCount = 0;
        openSum = 0.0;
        openSumSq = 0.0;
        return true;
    }

    /** Pushes a finished epoch with mean μ and second moment χ directly. */
    public void addEpoch(double epochMean, double epochSecondMoment) {
        if (size == capacity) {
            double oldMu = mu[next];
            sumMu -= oldMu;
            sumMu2 -= oldMu * oldMu;
            sumChi -= chi[next];
        } else {
            size++;
        }
        mu[next] = epochMean;
        chi[next] = epochSecondMoment;
        sumMu += epochMean;
        sumMu2 += epochMean * epochMean;
        sumChi += epochSecondMoment;
        next = (next + 1) % capacity;
        if (++pushesSinceResum >= capacity) {
            resum();
        }
    }

    private void resum() {
        sumMu = 0.0;
        sumMu2 = 0.0;
        sumChi = 0.0;
        for (int i = 0; i < size; i++) {
            sumMu += mu[i];
            sumMu2 += mu[i] * mu[i];
            sumChi += chi[i];
        }
        pushesSinceResum = 0;
    }

    /** h. */
    public int capacity() {
        return capacity;
    }

    /** Finished epochs held (≤ h). */
    public int epochs() {
        return size;
    }

    /** μ̄ = (1/N)Σμ_i over the held epochs (Alg. 1 line 2); 0 if none. */
    public double meanDelay() {
        return size == 0 ? 0.0 : sumMu / size;
    }

    /** χ̄ = (1/N)Σχ_i over the held epochs (Alg. 1 line 2); 0 if none. */
    public double meanSecondMoment() {
        return size == 0 ? 0.0 : sumChi / size;
    }

    /** Eq. 6 as printed (variance of the mean of N epochs); see {@link KlinkMath#varianceEq6}. */
    public double varianceEq6() {
        return KlinkMath.varianceEq6(size, sumMu, sumMu2, sumChi);
    }

    /** χ̄ − μ̄², the variance of one epoch's delay; what {@link KlinkEstimator} uses. */
    public double pooledVariance() {
        return KlinkMath.pooledVariance(meanDelay(), meanSecondMoment());
    }

    /** The held epoch means, oldest first (O(h); for tests and diagnostics). */
    public double[] epochMeans() {
        return ordered(mu);
    }

    /** The held epoch second moments, oldest first (O(h); for tests and diagnostics). */
    public double[] epochSecondMoments() {
        return ordered(chi);
    }

    private double[] ordered(double[] ring) {
        double[] out = new double[size];
        int start = size == capacity ? next : 0;
        for (int i = 0; i < size; i++) {
            out[i] = ring[(start + i) % capacity];
        }
        return out;
    }
}
