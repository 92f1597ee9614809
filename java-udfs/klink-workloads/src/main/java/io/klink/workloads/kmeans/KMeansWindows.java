package io.klink.workloads.kmeans;

import io.klink.metrics.Envelope;
import io.klink.metrics.TumblingWindows;
import java.util.Arrays;
import java.util.List;

/**
 * Event-time tumbling windows that cluster their 2-D points ({@code fields = {x, y}}, weighted) into k
 * clusters when they fire — the expensive window operator of the kMeans workload. Windows as Flink's
 * ({@code [start, end)}, {@code start = t - ((t - offset) mod size)}); the k-means++ start is seeded by the
 * window's end, so a window's clustering is reproducible. Each centroid is one RESULT: key {@code c0..},
 * value = its (weighted) point count, fields = {x, y}.
 */
public final class KMeansWindows extends TumblingWindows<KMeansWindows.Points> {

    private final int k;
    private final int maxIterations;

    public KMeansWindows(long sizeMs, long offsetMs, int k, int maxIterations) {
        super(sizeMs, offsetMs);
        if (k < 1 || maxIterations < 1) {
            throw new IllegalArgumentException("need a positive window, k >= 1 and at least one iteration");
        }
        this.k = k;
        this.maxIterations = maxIterations;
    }

    @Override
    protected Points newWindow() {
        return new Points();
    }

    @Override
    protected void addTo(Points points, Envelope event) {
        points.add(event.fields[0], event.fields[1], event.weight);
    }

    @Override
    protected Fired emitResults(Points points, long end, List<Envelope> out) {
        Lloyd.Clustering clustering = Lloyd.cluster(points.xs, points.ys, points.ws, points.size, k, maxIterations, end);
        double[][] centroids = clustering.centroids();
        for (int c = 0; c < centroids.length; c++) {
            Envelope result = Envelope.result("c" + c, end, Math.round(clustering.weights()[c]));
            result.weight = clustering.weights()[c];
            result.fields = centroids[c];
            out.add(result);
        }
        return new Fired(centroids.length, points.size);
    }

    /** A window's points, in growing arrays (no boxing: windows hold many). */
    static final class Points {
        double[] xs = new double[256], ys = new double[256], ws = new double[256];
        int size;

        void add(double x, double y, double w) {
            if (size == xs.length) {
                xs = Arrays.copyOf(xs, 2 * size);
                ys = Arrays.copyOf(ys, 2 * size);
                ws = Arrays.copyOf(ws, 2 * size);
            }
            xs[size] = x;
            ys[size] = y;
            ws[size] = w;
            size++;
        }
    }
}
