package io.klink.workloads.rides;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The controller and an instance through a fake klinkctl: the controller reads the buffers from the REST API and
 * sends λ and its rows, keeping rows klinkctl could not take yet; an instance follows λ once klinkctl answers.
 */
class ControllerLoopTest {

    private static final String METRICS = "[{\"id\":\"0." + BufferMonitor.METRIC + "\",\"value\":\"1.0\"},"
            + "{\"id\":\"1." + BufferMonitor.METRIC + "\",\"value\":\"0.6\"}]";
    private static final PiController.Params PARAMS = new PiController.Params(0.5, 0.8, 1000, 500, 20, 10_000);

    @Test
    void theControllerSendsEachPeriodsIntervalAndKeepsItsRowsUntilKlinkctlTakesThem() throws Exception {
        AtomicBoolean runOn = new AtomicBoolean(false);
        List<String> taken = new CopyOnWriteArrayList<>();
        try (FakeKlinkctl klinkctl = new FakeKlinkctl(request -> {
            if (request.path().startsWith("/jobs/")) {
                return new FakeKlinkctl.Answer(200, METRICS);
            }
            if (runOn.get() && request.path().equals("/combiner/rows")) {
                taken.add(request.body());
            }
            return new FakeKlinkctl.Answer(runOn.get() ? 200 : 503, "");
        })) {
            BufferMonitor monitor = new BufferMonitor(klinkctl.url(), "j1", "v1", 2, 30,
                    new PiController(PARAMS, 500), new CombinerChannel(klinkctl.address(), "q00"), "q00");
            Thread loop = start(monitor);
            await(() -> posts(klinkctl, "/combiner/rows").size() >= 2);  // klinkctl's run is not on yet
            runOn.set(true);
            await(() -> !taken.isEmpty());
            loop.interrupt();
            loop.join(5000);
            assertFalse(loop.isAlive());

            List<String> lines = taken.get(0).lines().toList();
            assertEquals(CombinerChannel.COLUMNS, lines.get(0));
            assertTrue(lines.size() >= 4, taken.get(0));  // the periods refused before, and this one
            for (int period = 1; period < lines.size(); period++) {
                assertTrue(lines.get(period).contains(",q00," + period + ",1.0000;0.6000,0.8000,true,"),
                        lines.get(period));
            }
            Interval first = Interval.fromJson(posts(klinkctl, "/combiner/interval").get(0).body());
            assertEquals(1, first.period());
            assertEquals(500 + 1000 * 0.2 + 500 * 0.2, first.intervalMs(), 1);  // one instance saturated: e = 0.2
        }
    }

    @Test
    void anInstanceFollowsTheLatestIntervalOnceKlinkctlAnswersAndStopsWhenInterrupted() throws Exception {
        AtomicBoolean runOn = new AtomicBoolean(false);
        String interval = new Interval(1, 70, 0).toJson();
        try (FakeKlinkctl klinkctl = new FakeKlinkctl(request -> !runOn.get() ? new FakeKlinkctl.Answer(503, "")
                : new FakeKlinkctl.Answer(200, request.query().endsWith("seen=1") ? "" : interval))) {
            IntervalFollower follower = new IntervalFollower(new CombinerChannel(klinkctl.address(), "q00"));
            Thread thread = start(follower);
            await(() -> !klinkctl.requests.isEmpty());
            assertEquals(null, follower.latest());
            runOn.set(true);
            await(() -> follower.latest() != null);
            assertEquals(new Interval(1, 70, 0), follower.latest());
            thread.interrupt();
            thread.join(5000);
            assertFalse(thread.isAlive());
        }
    }

    private static List<FakeKlinkctl.Request> posts(FakeKlinkctl klinkctl, String path) {
        return klinkctl.requests.stream().filter(r -> r.method().equals("POST") && r.path().equals(path)).toList();
    }

    private static Thread start(Runnable task) {
        Thread thread = new Thread(task);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (!condition.getAsBoolean()) {
            assertTrue(System.currentTimeMillis() < deadline, "timed out");
            Thread.sleep(10);
        }
    }
}
