package io.klink.workloads.tail;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

class TailTest {

    private static final double EPS = 1e-9;

    private static RecordPipeline.Config config(String stageCostModel) {
        return new RecordPipeline.Config(0, 2, stageCostModel, 50, java.util.Map.of(), 2, 0,
                Tails.NAMES.iterator().next(), "fb", 1000, 0.5, 1.2, 0.01, 1000, 0.2, "", 0, 0);
    }

    @Test
    void aConfigKnowsItsStageCostModelAndRefusesAnUnknownOne() {
        assertEquals(StageCost.named("wall-exp"), config("wall-exp").stageCost());
        assertThrows(IllegalArgumentException.class, () -> config("sleep"));
    }

    @Test
    void aSlowerTaskManagerStretchesWallClockServiceTimesOnlyThere() {
        ServiceTime service = new ServiceTime(StageCost.WALL_EXP, 8000, java.util.Map.of("taskmanager-2", 0.5));
        assertEquals(16_000, service.microsOn("taskmanager-2"));
        assertEquals(8000, service.microsOn("taskmanager-1"));
        assertEquals(8000, new ServiceTime(StageCost.WALL, 8000, null).microsIn(() -> {
            throw new AssertionError("no speeds: the runtime context is not read");
        }));
        assertThrows(IllegalArgumentException.class,
                () -> new ServiceTime(StageCost.WALL, 8000, java.util.Map.of("taskmanager-2", 1.5)));
        assertThrows(IllegalArgumentException.class,
                () -> new ServiceTime(StageCost.CPU, 8000, java.util.Map.of("taskmanager-2", 0.5)));
    }

    private static boolean adaptivePartitionerInJobConfiguration(String tail) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        RecordPipeline.configureJob(env, tail);
        env.fromData(1, 2, 3).rebalance().map(x -> x).sinkTo(new DiscardingSink<>());
        return env.getStreamGraph().getJobConfiguration().get(NettyShuffleEnvironmentOptions.ADAPTIVE_PARTITIONER_ENABLED);
    }

    @Test
    void theAdaptiveExchangeTurnsOnFlinksPartitionerForItsJobOnly() {
        assertTrue(adaptivePartitionerInJobConfiguration(Tails.ADAPTIVE));
        assertFalse(adaptivePartitionerInJobConfiguration(Tails.NONE));
    }

    @Test
    void equalLatenciesMoveNoTraffic() {
        LatencyBalance b = new LatencyBalance(4, 0.5, 1.2, 0.01);
        b.adjust(new double[] {10, 11, 10.5, 11.9});
        assertArrayEquals(new double[] {0.25, 0.25, 0.25, 0.25}, b.shares(), EPS);
    }

    @Test
    void theSlowestTaskGivesOneUnitToTheFastestPerPeriod() {
        LatencyBalance b = new LatencyBalance(4, 0.5, 1.2, 0.01);
        b.adjust(new double[] {10, 30, 10.5, 11});
        // pairs (fastest 0, slowest 1): 30/10 > 1.2 moves; (10.5, 11): within 1.2, so the loop stops (line 13)
        assertArrayEquals(new double[] {0.26, 0.24, 0.25, 0.25}, b.shares(), EPS);
        b.adjust(new double[] {10, 30, 10.5, 11});
        assertArrayEquals(new double[] {0.27, 0.23, 0.25, 0.25}, b.shares(), EPS);
    }

    @Test
    void latenciesAreAgedWithAlpha() {
        LatencyBalance b = new LatencyBalance(2, 0.5, 1.2, 0.01);
        b.adjust(new double[] {10, 30});  // Wt = 10, 30: moves
        b.adjust(new double[] {10, 10});  // Wt1 = 0.5·10 + 0.5·30 = 20 > 1.2·10: moves again
        b.adjust(new double[] {10, 10});  // Wt1 = 15 > 12: moves
        b.adjust(new double[] {10, 10});  // Wt1 = 12.5 > 12: moves
        b.adjust(new double[] {10, 10});  // Wt1 = 11.25: stops
        assertArrayEquals(new double[] {0.54, 0.46}, b.shares(), EPS);
    }

    @Test
    void tasksThatStatedNothingKeepTheirAgedLatencyAndUnmeasuredOnesAreLeftOut() {
        LatencyBalance b = new LatencyBalance(3, 0.5, 1.2, 0.01);
        b.adjust(new double[] {Double.NaN, 30, 10});
        assertArrayEquals(new double[] {1.0 / 3, 1.0 / 3 - 0.01, 1.0 / 3 + 0.01}, b.shares(), EPS);
        b.adjust(new double[] {Double.NaN, Double.NaN, Double.NaN});
        assertArrayEquals(new double[] {1.0 / 3, 1.0 / 3 - 0.02, 1.0 / 3 + 0.02}, b.shares(), EPS);
    }

    @Test
    void recordsFollowTheSharesExactly() {
        LatencyBalance b = new LatencyBalance(2, 0.5, 1.2, 0.25);
        b.adjust(new double[] {10, 100});  // one unit of 0.25 moves: 0.75, 0.25
        int[] sent = new int[2];
        for (int i = 0; i < 400; i++) {
            sent[b.next()]++;
        }
        assertArrayEquals(new int[] {300, 100}, sent);
    }

    @Test
    void refusesSettingsOutOfRange() {
        assertThrows(IllegalArgumentException.class, () -> new LatencyBalance(2, 0, 1.2, 0.01));
        assertThrows(IllegalArgumentException.class, () -> new LatencyBalance(2, 0.5, 0.9, 0.01));
        assertThrows(IllegalArgumentException.class, () -> new LatencyBalance(0, 0.5, 1.2, 0.01));
    }

    @Test
    void aLongTailSetsTheTimeoutAtP90() {
        AdaptiveTimeout t = new AdaptiveTimeout();
        assertEquals(Long.MAX_VALUE, t.timeoutMicros());  // nothing completed yet: never replay
        record(t, 980, 10_000, 20, 100_000);  // p90 10 ms, p99 100 ms > 2 x p90
        t.endPeriod();
        assertEquals(10_000, t.timeoutMicros(), 10);
    }

    @Test
    void aTailOnlyPastP99SetsTheTimeoutAtP95() {
        AdaptiveTimeout t = new AdaptiveTimeout();
        record(t, 9_985, 10_000, 15, 100_000);  // p99 10 ms (not > 2 x p90), p99.9 100 ms > 2 x p95
        t.endPeriod();
        assertEquals(10_000, t.timeoutMicros(), 10);
        t.endPeriod();  // a period with nothing completed keeps the timeout
        assertEquals(10_000, t.timeoutMicros(), 10);
    }

    @Test
    void aShortTailSetsTheTimeoutAtP999() {
        AdaptiveTimeout t = new AdaptiveTimeout();
        for (int v = 1; v <= 1000; v++) {
            t.observe(10_000 + v);  // 10.001..11 ms: no gap anywhere
        }
        t.endPeriod();
        assertEquals(10_999, t.timeoutMicros(), 11);
    }

    private static void record(AdaptiveTimeout t, int fastCount, long fast, int slowCount, long slow) {
        for (int i = 0; i < fastCount; i++) {
            t.observe(fast);
        }
        for (int i = 0; i < slowCount; i++) {
            t.observe(slow);
        }
    }

    @Test
    void laterCopiesAreDroppedUntilTheHorizon() {
        RecordLatencySink.SeenIds seen = new RecordLatencySink.SeenIds(60_000);
        assertTrue(seen.firstCopy(7, 1_000));
        assertFalse(seen.firstCopy(7, 1_000));
        assertTrue(seen.firstCopy(8, 1_000));
        assertTrue(seen.firstCopy(9, 70_000));  // 1 000 is now past the horizon: forgotten
        assertEquals(1, seen.remembered());
    }

    @Test
    void theMetricRowCarriesADecodableHistogram() throws DataFormatException {
        Histogram h = new Histogram(RecordLatencySink.HIGHEST_MICROS, RecordLatencySink.DIGITS);
        for (int v = 1; v <= 1000; v++) {
            h.recordValue(v * 1000L);
        }
        String row = RecordLatencySink.row("q00", 2, 1000, 2000, h, 3, 4500);
        assertTrue(row.startsWith("{\"type\":\"records\",\"query\":\"q00\",\"subtask\":2,\"start_ms\":1000,"
                + "\"end_ms\":2000,\"count\":1000,\"duplicates\":3,\"queued_us\":4500,\"histogram\":\""), row);
        byte[] bytes = Base64.getDecoder().decode(RecordLatencySink.encode(h));
        Histogram back = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
        assertEquals(1000, back.getTotalCount());
        assertEquals(990_000, back.getValueAtPercentile(99), 990);
    }

    @Test
    void readsPackedLinesAndSkipsProgressRecords() throws IOException {
        List<TailRecord> out = new ArrayList<>();
        new TailRecordDeserializer().deserialize("5,mike,1000\n#progress,2000\n6,golda,1001".getBytes(
                StandardCharsets.US_ASCII), collector(out));
        assertEquals(2, out.size());
        assertEquals(6, out.get(1).id);
        assertEquals(1001, out.get(1).createdMs);
        assertEquals("golda", out.get(1).payload);
        assertThrows(IOException.class, () -> TailRecordDeserializer.parse("x,mike,1000"));
        assertThrows(IOException.class, () -> TailRecordDeserializer.parse("1000"));
    }

    @Test
    void aReplayedCopyIsANewRecordWithTheSameId() {
        TailRecord r = new TailRecord(5, 1000, "mike");
        TailRecord copy = r.replayed();
        assertEquals(5, copy.id);
        assertEquals(1, copy.copy);
        assertEquals(0, r.copy);
    }

    @Test
    void aRecordQueuesFromAnUpstreamHandOverNotFromTheSource() {
        Stage spout = new Stage(ServiceTime.NONE, RecordWork.PASS, null, null, null, 1);
        Stage stage = new Stage(ServiceTime.NONE, RecordWork.EXCLAIM, null, null, null, 1);
        spout.open(null);
        stage.open(null);
        TailRecord r = spout.work(new TailRecord(1, 1000, "mike"));
        assertEquals(0, r.queuedUs);  // fresh from the source: nothing to wait from
        assertTrue(r.handedOnUs > 0);
        r.handedOnUs -= 5_000;  // handed on 5 ms ago
        r = stage.work(r);
        assertTrue(r.queuedUs >= 5_000 && r.queuedUs < 1_000_000, "queued " + r.queuedUs);
    }

    @Test
    void aStallingTaskStopsForTheStallsLengthOnceOneIsDueAndATaskWithoutStallsNever() throws InterruptedException {
        Stalls.Schedule stalling = new Stalls(1, 30).start(() -> 7);
        Thread.sleep(50);  // a gap of mean 1 ms has surely passed
        long before = System.nanoTime();
        assertEquals(30, stalling.waitIfDue());
        assertTrue(System.nanoTime() - before >= 30_000_000);
        Stalls.Schedule never = Stalls.NONE.start(() -> {
            throw new AssertionError("no stalls: no seed is drawn");
        });
        assertEquals(0, never.waitIfDue());
        assertThrows(IllegalArgumentException.class, () -> new Stalls(-1, 10));
        assertEquals(Stalls.NONE, new ServiceTime(StageCost.WALL, 10, null).stalls());
    }

    @Test
    void cpuCostTakesAtLeastItsCpuTime() {
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadCpuTime();
        StageCost.CPU.spend(2000);
        assertTrue(threads.getCurrentThreadCpuTime() - before >= 2_000_000);
    }

    @Test
    void wallCostsWaitWithoutBurningCpuAndExponentialOnesAverageTheirMean() {
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuBefore = threads.getCurrentThreadCpuTime();
        long before = System.nanoTime();
        StageCost.WALL.spend(20_000);
        assertTrue(System.nanoTime() - before >= 20_000_000);
        assertTrue(threads.getCurrentThreadCpuTime() - cpuBefore < 10_000_000);
        before = System.nanoTime();
        for (int i = 0; i < 200; i++) {
            StageCost.WALL_EXP.spend(500);
        }
        double meanMicros = (System.nanoTime() - before) / 200 / 1000.0;
        assertTrue(meanMicros > 350 && meanMicros < 900, "mean " + meanMicros);  // 200 draws: ±15 % at 2 sigma, + park overshoot
        assertEquals(StageCost.WALL_EXP, StageCost.named("wall-exp"));
        assertThrows(IllegalArgumentException.class, () -> StageCost.named("sleep"));
    }

    @Test
    void aStagesTasksInOneJvmShareOneQueueServedByOneWorkerEach() throws Exception {
        SharedQueue first = new SharedQueue(new ServiceTime(StageCost.CPU, 100, null), RecordWork.EXCLAIM, "run/q00/stage-1");
        SharedQueue second = new SharedQueue(new ServiceTime(StageCost.CPU, 100, null), RecordWork.EXCLAIM, "run/q00/stage-1");
        first.open(null);
        second.open(null);
        assertEquals(2, SharedQueue.workers("run/q00/stage-1"));
        java.util.concurrent.CompletableFuture<TailRecord> done = new java.util.concurrent.CompletableFuture<>();
        second.asyncInvoke(new TailRecord(1, 1000, "mike"), new org.apache.flink.streaming.api.functions.async.ResultFuture<>() {
            @Override
            public void complete(java.util.Collection<TailRecord> result) {
                done.complete(result.iterator().next());
            }

            @Override
            public void completeExceptionally(Throwable error) {
                done.completeExceptionally(error);
            }

            @Override
            public void complete(org.apache.flink.streaming.api.functions.async.CollectionSupplier<TailRecord> supplier) {
                try {
                    complete(supplier.get());
                } catch (Exception error) {
                    done.completeExceptionally(error);
                }
            }
        });
        assertEquals("mike!", done.get(10, java.util.concurrent.TimeUnit.SECONDS).payload);
        first.close();
        second.close();
        assertEquals(0, SharedQueue.workers("run/q00/stage-1"));
    }

    private static Collector<TailRecord> collector(List<TailRecord> out) {
        return new Collector<>() {
            @Override
            public void collect(TailRecord record) {
                out.add(record);
            }

            @Override
            public void close() {}
        };
    }
}
