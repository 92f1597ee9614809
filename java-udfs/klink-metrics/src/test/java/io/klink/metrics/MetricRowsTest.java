package io.klink.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class MetricRowsTest {

    @Test
    void swmLatencyIsOutputTimeMinusWindowEnd() {
        Envelope firing = new Envelope();
        firing.kind = Envelope.FIRING;
        firing.windowStart = 1000;
        firing.timestamp = 2000;
        firing.sweepingWatermark = 2100;
        firing.wallTime = 3400;
        firing.keys = 3;
        firing.value = 42;
        firing.lateDropped = 1;
        assertEquals("{\"type\":\"firing\",\"query\":\"q03\",\"window_start\":1000,\"window_end\":2000,\"swm\":2100,"
                        + "\"fired_at\":3400,\"output_at\":3500,\"swm_latency_ms\":1500,\"keys\":3,\"events\":42,"
                        + "\"late_dropped\":1}",
                new MetricRows("q03").onElement(firing, 3500));
    }

    @Test
    void markerLatencyIsNowMinusCreation() {
        assertEquals("{\"type\":\"marker\",\"query\":\"q00\",\"created_at\":100,\"output_at\":350,\"latency_ms\":250}",
                new MetricRows("q00").onElement(Envelope.marker(100), 350));
    }

    @Test
    void watermarkPropagationPairsAWatermarkWithTheProbeAheadOfIt() {
        MetricRows rows = new MetricRows("q00");
        assertNull(rows.onElement(Envelope.probe(900, 1000), 1010));
        assertNull(rows.onElement(Envelope.probe(1100, 1200), 1210));
        assertNull(rows.onWatermark(800, 1250));  // no probe for it
        assertEquals("{\"type\":\"watermark\",\"query\":\"q00\",\"watermark\":1100,\"emitted_at\":1200,"
                + "\"output_at\":1230,\"propagation_ms\":30}", rows.onWatermark(1100, 1230));
        assertNull(rows.onWatermark(900, 1300));  // superseded by 1100
    }

    @Test
    void recordedResultsCarryTheUnroundedWeightAndTheFields() {
        Envelope result = Envelope.result("c1", 1000, 5);
        result.weight = 4.5;
        result.fields = new double[] {1.5, -2.0};
        assertEquals("{\"type\":\"result\",\"query\":\"q00\",\"window_end\":1000,\"key\":\"c1\",\"value\":5,"
                + "\"weight\":4.5,\"fields\":[1.5,-2.0],\"output_at\":2000}", new MetricRows("q00", true).onElement(result, 2000));
    }

    @Test
    void dataResultsProduceNoRow() {
        assertNull(new MetricRows("q00").onElement(Envelope.result("c", 1000, 5), 2000));
    }
}
