package io.klink.workloads.late;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.klink.workloads.late.IoScheduler.Priority;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** §4's I/O thread: pre-staging before late writes before destaging, one window's requests in order. */
class IoSchedulerTest {

    private static CompletableFuture<String> log(IoScheduler io, List<String> order, long window, Priority p,
                                                 String name) {
        return io.submit(window, p, () -> {
            order.add(name);
            return name;
        });
    }

    @Test
    void runsPrestagingThenLateWritesThenDestaging() throws Exception {
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        try (IoScheduler io = new IoScheduler("test-io", false)) {
            log(io, order, 1, Priority.DESTAGE, "destage-1");
            log(io, order, 2, Priority.LATE_WRITE, "late-2");
            log(io, order, 3, Priority.DESTAGE, "destage-3");
            CompletableFuture<String> last = log(io, order, 4, Priority.PRESTAGE, "stage-4");
            io.start();
            assertEquals("stage-4", last.get(5, TimeUnit.SECONDS));
            CompletableFuture<String> end = log(io, order, 9, Priority.DESTAGE, "end");
            end.get(5, TimeUnit.SECONDS);
            assertEquals(List.of("stage-4", "late-2", "destage-1", "destage-3", "end"), order);
            assertEquals(1, io.executed(Priority.PRESTAGE));
            assertEquals(1, io.executed(Priority.LATE_WRITE));
            assertEquals(3, io.executed(Priority.DESTAGE));
        }
    }

    @Test
    void aStagingReadRaisesTheEarlierRequestsOfItsWindowAndRunsAfterThem() throws Exception {
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        try (IoScheduler io = new IoScheduler("test-io", false)) {
            log(io, order, 2, Priority.LATE_WRITE, "late-2");
            log(io, order, 1, Priority.DESTAGE, "destage-1");
            log(io, order, 1, Priority.LATE_WRITE, "late-1");
            CompletableFuture<String> stage = log(io, order, 1, Priority.PRESTAGE, "stage-1");
            io.start();
            stage.get(5, TimeUnit.SECONDS);
            log(io, order, 9, Priority.DESTAGE, "end").get(5, TimeUnit.SECONDS);
            assertEquals(List.of("destage-1", "late-1", "stage-1", "late-2", "end"), order);
        }
    }

    @Test
    void aFailedRequestFailsItsFutureOnlyAndCloseCancelsThePending() throws Exception {
        IoScheduler io = new IoScheduler("test-io", true);
        CompletableFuture<Object> failed = io.submit(1, Priority.DESTAGE, () -> {
            throw new java.io.IOException("disk full");
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> failed.get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("disk full"));
        assertEquals("ok", io.submit(1, Priority.DESTAGE, () -> "ok").get(5, TimeUnit.SECONDS));
        io.close();
        assertThrows(IllegalStateException.class, () -> io.submit(1, Priority.DESTAGE, () -> "x"));
    }
}
