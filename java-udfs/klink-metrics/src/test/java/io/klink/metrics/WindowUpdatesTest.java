package io.klink.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class WindowUpdatesTest {

    private static Envelope update(String key, long windowEnd, long events) {
        Envelope e = Envelope.result(key, windowEnd, events);
        e.fields = new double[] {events};
        return e;
    }

    @Test
    void oneRowPerUpdatedWindowWithItsLastUpdateAndTheLatestCountsOfItsKeys() {
        WindowUpdates updates = new WindowUpdates("q00");
        updates.onUpdate(update("r1", 2000, 3), 2100);
        updates.onUpdate(update("r2", 2000, 1), 2150);
        updates.onUpdate(update("r1", 4000, 2), 2160);
        updates.onUpdate(update("r1", 2000, 5), 2140);  // a later result of r1 replaces its count
        assertEquals(List.of(
                "{\"type\":\"update\",\"query\":\"q00\",\"window_end\":2000,\"updated_at\":2150,\"keys\":2,"
                        + "\"events\":6,\"updates\":3,\"swm\":-1,\"swm_at\":-1}",
                "{\"type\":\"update\",\"query\":\"q00\",\"window_end\":4000,\"updated_at\":2160,\"keys\":1,"
                        + "\"events\":2,\"updates\":1,\"swm\":-1,\"swm_at\":-1}"), updates.flush());
    }

    @Test
    void aFlushReportsOnlyWindowsUpdatedSinceTheLastOne() {
        WindowUpdates updates = new WindowUpdates("q00");
        updates.onUpdate(update("r1", 2000, 3), 2100);
        updates.onUpdate(update("r1", 4000, 1), 2100);
        updates.flush();
        assertTrue(updates.flush().isEmpty());
        updates.onUpdate(update("r2", 4000, 4), 2600);
        assertEquals(List.of("{\"type\":\"update\",\"query\":\"q00\",\"window_end\":4000,\"updated_at\":2600,"
                + "\"keys\":2,\"events\":5,\"updates\":1,\"swm\":-1,\"swm_at\":-1}"), updates.flush());
    }

    @Test
    void aWindowsSweepingWatermarkIsTheFirstAtOrPastItsLastMillisecondWhenEverItWasFirstUpdated() {
        WindowUpdates updates = new WindowUpdates("q00");
        updates.onUpdate(update("r1", 2000, 3), 1500);
        updates.onWatermark(1500, 1600);  // sweeps nothing
        updates.onWatermark(1999, 2100);  // sweeps window 2000 ([1000, 2000)), as TumblingWindows fire
        updates.onWatermark(1800, 2150);  // not an advance
        updates.onUpdate(update("r2", 2000, 1), 2200);  // an update after its SWM (data slower than watermarks)
        assertEquals(List.of("{\"type\":\"update\",\"query\":\"q00\",\"window_end\":2000,\"updated_at\":2200,"
                + "\"keys\":2,\"events\":4,\"updates\":2,\"swm\":1999,\"swm_at\":2100}"), updates.flush());
        updates.onWatermark(2600, 2700);
        updates.onUpdate(update("r1", 2500, 1), 2800);  // first updated after a watermark passed its end
        assertEquals(List.of("{\"type\":\"update\",\"query\":\"q00\",\"window_end\":2500,\"updated_at\":2800,"
                + "\"keys\":1,\"events\":1,\"updates\":1,\"swm\":2600,\"swm_at\":2700}"), updates.flush());
        updates.onWatermark(Long.MAX_VALUE, 2900);  // the end of input sweeps what is left, no overflow
        updates.onUpdate(update("r1", 9000, 1), 2950);
        assertTrue(updates.flush().get(0).endsWith("\"swm\":" + Long.MAX_VALUE + ",\"swm_at\":2900}"));
    }

    @Test
    void theOldestWindowsAreForgottenBeyondTheLimit() {
        WindowUpdates updates = new WindowUpdates("q00");
        for (int i = 0; i <= WindowUpdates.MAX_WINDOWS; i++) {
            updates.onUpdate(update("r", 1000L * (i + 1), 1), 5000);
        }
        List<String> rows = updates.flush();
        assertEquals(WindowUpdates.MAX_WINDOWS, rows.size());
        assertTrue(rows.get(0).contains("\"window_end\":2000,"));
    }
}
