package io.klink.workloads.kmeans;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;

/**
 * Weighted k-means (Lloyd's algorithm) on 2-D points with a seeded greedy k-means++ start: what a kMeans window runs
 * on its points. A point of weight w counts as w points (a sampler's scale-up); the result is deterministic
 * for a given seed, and its centroids come sorted by x then y.
 */
public final class Lloyd {

    /** Centroids ({x, y} each, sorted), the weight assigned to each, and the iterations run. */
    public record Clustering(double[][] centroids, double[] weights, int iterations) {}

    private Lloyd() {}

    public static Clustering cluster(double[] xs, double[] ys, double[] ws, int n, int k, int maxIterations, long seed) {
        int clusters = Math.min(k, n);
        double[][] centroids = kMeansPlusPlus(xs, ys, ws, n, clusters, new SplittableRandom(seed));
        int[] assignment = new int[n];
        Arrays.fill(assignment, -1);
        double[] weights = new double[clusters];
        int iterations = 0;
        boolean changed = true;
        while (changed && iterations < maxIterations) {
            iterations++;
            changed = assign(xs, ys, n, centroids, assignment);
            weights = recentre(xs, ys, ws, n, centroids, assignment);
        }
        Integer[] order = new Integer[clusters];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, Comparator.<Integer>comparingDouble(i -> centroids[i][0]).thenComparingDouble(i -> centroids[i][1]));
        double[][] sorted = new double[clusters][];
        double[] sortedWeights = new double[clusters];
        for (int i = 0; i < clusters; i++) {
            sorted[i] = centroids[order[i]];
            sortedWeights[i] = weights[order[i]];
        }
        return new Clustering(sorted, sortedWeights, iterations);
    }

    /**
     * Greedy k-means++ (Arthur & Vassilvitskii, with local trials): for each next centre, 2 + ⌊ln k⌋ candidates
     * are drawn with probability ∝ weight · squared distance to the nearest centre so far, and the one that
     * leaves the least weighted squared distance is kept. One draw per step (plain k-means++) misses one of five
     * well-separated clusters in about one window in ten, and Lloyd's then stays in that local optimum.
     */
    static double[][] kMeansPlusPlus(double[] xs, double[] ys, double[] ws, int n, int k, SplittableRandom random) {
        double[][] centres = new double[k][];
        double[] nearest = new double[n];
        Arrays.fill(nearest, Double.POSITIVE_INFINITY);
        int first = pick(ws, n, ws, random);
        centres[0] = new double[] {xs[first], ys[first]};
        int trials = 2 + (int) Math.log(k);
        for (int c = 1; c < k; c++) {
            double[] score = new double[n];
            for (int i = 0; i < n; i++) {
                nearest[i] = Math.min(nearest[i], squaredDistance(xs[i], ys[i], centres[c - 1]));
                score[i] = ws[i] * nearest[i];
            }
            int[] candidates = new int[trials];
            for (int t = 0; t < trials; t++) {
                candidates[t] = pick(score, n, ws, random);
            }
            int next = leastPotential(xs, ys, ws, n, nearest, candidates);
            centres[c] = new double[] {xs[next], ys[next]};
        }
        return centres;
    }

    /** The candidate after which Σ weight · squared distance to the nearest centre is least (the first on ties). */
    private static int leastPotential(double[] xs, double[] ys, double[] ws, int n, double[] nearest,
                                      int[] candidates) {
        int best = candidates[0];
        double bestPotential = Double.POSITIVE_INFINITY;
        for (int candidate : candidates) {
            double[] centre = {xs[candidate], ys[candidate]};
            double potential = 0;
            for (int i = 0; i < n; i++) {
                potential += ws[i] * Math.min(nearest[i], squaredDistance(xs[i], ys[i], centre));
            }
            if (potential < bestPotential) {
                best = candidate;
                bestPotential = potential;
            }
        }
        return best;
    }

    /** Index drawn with probability ∝ score (uniformly by weight if every score is 0). */
    private static int pick(double[] score, int n, double[] ws, SplittableRandom random) {
        double total = 0;
        for (int i = 0; i < n; i++) {
            total += score[i];
        }
        double[] by = total > 0 ? score : ws;
        double target = random.nextDouble() * (total > 0 ? total : Arrays.stream(ws, 0, n).sum());
        for (int i = 0; i < n; i++) {
            target -= by[i];
            if (target < 0) {
                return i;
            }
        }
        return n - 1;
    }

    private static boolean assign(double[] xs, double[] ys, int n, double[][] centroids, int[] assignment) {
        boolean changed = false;
        for (int i = 0; i < n; i++) {
            int best = 0;
            double bestDistance = Double.POSITIVE_INFINITY;
            for (int c = 0; c < centroids.length; c++) {
                double d = squaredDistance(xs[i], ys[i], centroids[c]);
                if (d < bestDistance) {
                    best = c;
                    bestDistance = d;
                }
            }
            changed |= assignment[i] != best;
            assignment[i] = best;
        }
        return changed;
    }

    /** Moves each centroid to the weighted mean of its points (an empty cluster keeps its place). */
    private static double[] recentre(double[] xs, double[] ys, double[] ws, int n, double[][] centroids,
                                     int[] assignment) {
        int k = centroids.length;
        double[] sumX = new double[k], sumY = new double[k], weights = new double[k];
        for (int i = 0; i < n; i++) {
            int c = assignment[i];
            sumX[c] += ws[i] * xs[i];
            sumY[c] += ws[i] * ys[i];
            weights[c] += ws[i];
        }
        for (int c = 0; c < k; c++) {
            if (weights[c] > 0) {
                centroids[c] = new double[] {sumX[c] / weights[c], sumY[c] / weights[c]};
            }
        }
        return weights;
    }

    private static double squaredDistance(double x, double y, double[] centre) {
        double dx = x - centre[0], dy = y - centre[1];
        return dx * dx + dy * dy;
    }
}
