package io.klink.workloads.kmeans;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.klink.metrics.Envelope;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class KMeansWindowsTest {

    private static final double[][] CENTRES = {{-50, -50}, {-50, 50}, {0, 0}, {50, -50}, {50, 50}};

    private static Envelope point(double x, double y, long t) {
        Envelope e = Envelope.data("points", t, 0);
        e.fields = new double[] {x, y};
        return e;
    }

    @Test
    void symmetricPointsAroundKnownCentresGiveExactlyThoseCentres() {
        KMeansWindows windows = new KMeansWindows(1000, 0, 5, 20);
        long t = 0;
        for (double[] c : CENTRES) {  // four points at distance 1 around each centre: their mean is the centre
            for (double[] d : new double[][] {{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) {
                windows.add(point(c[0] + d[0], c[1] + d[1], t++));
            }
        }
        List<Envelope> out = windows.advance(999, 5000);
        assertEquals(6, out.size());  // five centroids, then the firing
        for (int i = 0; i < 5; i++) {
            assertEquals("c" + i, out.get(i).key);
            assertEquals(4, out.get(i).value);
            assertArrayEquals(CENTRES[i], out.get(i).fields, 1e-12);  // sorted by x, then y
        }
        Envelope firing = out.get(5);
        assertEquals(Envelope.FIRING, firing.kind);
        assertEquals(20, firing.value);
        assertEquals(5, firing.keys);
    }

    @Test
    void matchesANaiveLloydOnSeededBlobs() {
        Random random = new Random(3);
        List<double[]> points = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            double[] c = CENTRES[random.nextInt(CENTRES.length)];
            points.add(new double[] {c[0] + 3 * random.nextGaussian(), c[1] + 3 * random.nextGaussian()});
        }
        KMeansWindows windows = new KMeansWindows(3000, 500, 5, 50);
        for (int i = 0; i < points.size(); i++) {
            windows.add(point(points.get(i)[0], points.get(i)[1], 500 + i));
        }
        List<Envelope> out = windows.advance(3499, 0);
        double[][] expected = naiveLloyd(points, CENTRES);
        for (int i = 0; i < 5; i++) {
            assertArrayEquals(expected[i], out.get(i).fields, 1e-9);
        }
    }

    /** Textbook Lloyd from given starting centres until nothing moves; centroids sorted by x then y. */
    private static double[][] naiveLloyd(List<double[]> points, double[][] start) {
        double[][] centres = Arrays.stream(start).map(double[]::clone).toArray(double[][]::new);
        for (int round = 0; round < 100; round++) {
            double[][] sums = new double[centres.length][3];
            for (double[] p : points) {
                int best = 0;
                for (int c = 1; c < centres.length; c++) {
                    if (Math.hypot(p[0] - centres[c][0], p[1] - centres[c][1])
                            < Math.hypot(p[0] - centres[best][0], p[1] - centres[best][1])) {
                        best = c;
                    }
                }
                sums[best][0] += p[0];
                sums[best][1] += p[1];
                sums[best][2]++;
            }
            for (int c = 0; c < centres.length; c++) {
                centres[c] = new double[] {sums[c][0] / sums[c][2], sums[c][1] / sums[c][2]};
            }
        }
        Arrays.sort(centres, (a, b) -> a[0] != b[0] ? Double.compare(a[0], b[0]) : Double.compare(a[1], b[1]));
        return centres;
    }

    @Test
    void aPointOfWeightTwoCountsAsTwoPoints() {
        KMeansWindows weighted = new KMeansWindows(1000, 0, 1, 10);
        KMeansWindows doubled = new KMeansWindows(1000, 0, 1, 10);
        Envelope heavy = point(10, 0, 1);
        heavy.weight = 2;
        weighted.add(heavy);
        weighted.add(point(0, 0, 2));
        doubled.add(point(10, 0, 1));
        doubled.add(point(10, 0, 1));
        doubled.add(point(0, 0, 2));
        Envelope a = weighted.advance(999, 0).get(0), b = doubled.advance(999, 0).get(0);
        assertArrayEquals(b.fields, a.fields, 1e-12);
        assertEquals(3, a.value);
        assertArrayEquals(new double[] {20.0 / 3, 0}, a.fields, 1e-12);
    }

    @Test
    void aPointOfAFiredWindowIsLateAndCounted() {
        KMeansWindows windows = new KMeansWindows(1000, 0, 2, 10);
        windows.add(point(1, 1, 10));
        windows.advance(999, 0);
        assertFalse(windows.add(point(2, 2, 500)));
        windows.add(point(3, 3, 1500));
        List<Envelope> out = windows.advance(1999, 0);
        assertEquals(1, out.get(out.size() - 1).lateDropped);
        assertEquals(1, out.get(0).value);  // fewer points than k: one cluster
    }

    @Test
    void theJobParsesPointsAndDropsOutliersAndMalformedLines() {
        KmeansJob.Parse parse = new KmeansJob.Parse();
        KmeansJob.InPlane inPlane = new KmeansJob.InPlane();
        Envelope ok = parse.map(Envelope.data("12.5,-3.25,1000", 1000, 0));
        assertArrayEquals(new double[] {12.5, -3.25}, ok.fields);
        assertEquals(true, inPlane.filter(ok));
        assertFalse(inPlane.filter(parse.map(Envelope.data("1500.0,-1200.0,1000", 1000, 0))));
        assertFalse(inPlane.filter(parse.map(Envelope.data("x,1,1000", 1000, 0))));
        assertEquals(true, inPlane.filter(Envelope.marker(5)));
    }
}
