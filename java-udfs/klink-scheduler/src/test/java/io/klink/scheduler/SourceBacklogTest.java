package io.klink.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SourceBacklogTest {

    @Test
    void aSourceThatKeepsUpHasNoBacklog() {
        SourceBacklog b = new SourceBacklog(0);
        for (long t = 0; t <= 20_000; t += 100) {
            assertEquals(0, b.update(t, t - 1_200, t * 10)); // 10 records/ms, lag steady at 1.2 s
        }
        assertEquals(10.0, b.recordsPerMs(), 1e-9);
    }

    @Test
    void aPausedSourceAccumulatesRateTimesPausedTime() {
        SourceBacklog b = new SourceBacklog(0);
        long t = 0;
        for (; t <= 12_000; t += 100) {
            b.update(t, t - 1_000, t * 10);
        }
        long frozenWatermark = t - 100 - 1_000;
        long frozenRecords = (t - 100) * 10;
        long pausedAt = t - 100;
        long backlog = 0;
        for (; t <= pausedAt + 2_000; t += 100) {
            backlog = b.update(t, frozenWatermark, frozenRecords);
        }
        assertEquals(20_000, backlog); // 2 s paused × 10 records/ms
    }

    @Test
    void lagWithinToleranceIsNoBacklog() {
        SourceBacklog b = new SourceBacklog(250);
        long last = 0;
        for (long t = 0; t <= 12_000; t += 100) {
            last = b.update(t, t - 1_000 - (t % 200), t * 10); // watermark steps every 200 ms
        }
        assertEquals(0, last);
        // paused since 12 000: lag 1 600 ms = floor 1 000 + tolerance 250 + 350 ms of records at 10/ms
        assertEquals(3_500, b.update(12_600, 11_000, 120_000));
    }

    @Test
    void noWatermarkYetMeansNoEstimate() {
        SourceBacklog b = new SourceBacklog(0);
        assertEquals(0, b.update(0, TaskSnapshot.NO_WATERMARK, 0));
        assertEquals(0, b.update(500, TaskSnapshot.NO_WATERMARK, 5_000));
    }
}
