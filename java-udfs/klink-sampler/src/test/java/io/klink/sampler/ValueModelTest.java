package io.klink.sampler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Eq. 4.4's cv² per kind of window, on hand-made sub-streams. */
class ValueModelTest {

    private static Substream substream(String[] keys, double... values) {
        Substream s = new Substream(100);
        for (int i = 0; i < keys.length; i++) {
            s.observe(keys[i], i, 0, values.length == 0 ? null : new double[] {values[i]});
        }
        return s;
    }

    @Test
    void keyCountIsTheMostKeysMinusOne() {
        Substream two = substream(new String[] {"a", "b", "a"});
        Substream four = substream(new String[] {"a", "b", "c", "d"});
        assertEquals(3.0, ValueModel.keyCount().relativeVariance(List.of(two, four)), 1e-12);
        assertEquals(0.0, ValueModel.keyCount().relativeVariance(List.of()), 1e-12);
    }

    @Test
    void meanIsTheValuesRelativeVarianceWhateverTheKeys() {
        // Values 10, 20 | 30, 20 pooled: μ = 20, σ² = 50, cv² = 50/400 = 0.125 (the keys do not count).
        Substream s1 = substream(new String[] {"a", "b"}, 10, 20);
        Substream s2 = substream(new String[] {"c", "d"}, 30, 20);
        assertEquals(0.125, ValueModel.mean(0).relativeVariance(List.of(s1, s2)), 1e-12);
        assertEquals(0.0, ValueModel.mean(0).relativeVariance(List.of()), 1e-12);
    }

    @Test
    void centroidsTakeTheBoundK() {
        Substream s = substream(new String[] {"p", "p"}, 1, 2);
        assertEquals(5.0, ValueModel.centroids(5).relativeVariance(List.of(s)), 1e-12);
        assertEquals(0.0, ValueModel.centroids(5).relativeVariance(List.of()), 1e-12);
    }

    @Test
    void pooledStatisticsEqualThoseOfAllValues() {
        RunningStats a = new RunningStats(), b = new RunningStats(), all = new RunningStats();
        double[] values = {1, 4, 9, 16, 25};
        for (int i = 0; i < values.length; i++) {
            (i < 2 ? a : b).add(values[i]);
            all.add(values[i]);
        }
        RunningStats pooled = RunningStats.pooled(List.of(a, new RunningStats(), b));
        assertEquals(5, pooled.count());
        assertEquals(11.0, pooled.mean(), 1e-12);
        assertEquals(all.variance(), pooled.variance(), 1e-12);  // (100+49+4+25+196)/5 = 74.8
        assertEquals(74.8, pooled.variance(), 1e-12);
    }

    @Test
    void aionPlansTheMeansSampleFromTheFieldsVariance() {
        // Eq. 4.4 with cv² = 0.125, z = 1.959964, r = 0.05, N = 500: 0.4801824 / (0.0025 + 0.00096036) = 138.77
        SamplerConfig config = new SamplerConfig("aion", 100, 500, 0, 0.05, 0.95, 50, 7, ValueModel.mean(0));
        assertEquals(138.77, SampleSizes.windowSampleSize(1.959964, config.error(),
                config.valueModel().relativeVariance(List.of(substream(new String[] {"a", "b"}, 10, 20),
                        substream(new String[] {"a", "b"}, 30, 20))), 500), 0.01);
    }
}
