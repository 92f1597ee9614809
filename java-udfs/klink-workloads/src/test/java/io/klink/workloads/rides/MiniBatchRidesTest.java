package io.klink.workloads.rides;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.klink.metrics.Envelope;
import io.klink.workloads.common.QueryPipelines;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.operators.SlotSharingGroup;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

class MiniBatchRidesTest {

    @Test
    void flinksOptionsCarryTheIntervalAndSizeWithZeroMeaningTheIntervalOnly() {
        assertEquals(Map.of("table.exec.mini-batch.enabled", "true", "table.exec.mini-batch.allow-latency", "500 ms",
                "table.exec.mini-batch.size", "3000", "table.optimizer.agg-phase-strategy", "TWO_PHASE"),
                MiniBatchRides.tableOptions(500, 3000));
        assertEquals(Long.toString(Long.MAX_VALUE), MiniBatchRides.tableOptions(1000, 0).get("table.exec.mini-batch.size"));
        assertThrows(IllegalArgumentException.class, () -> MiniBatchRides.tableOptions(0, 10));
        assertThrows(IllegalArgumentException.class, () -> MiniBatchRides.tableOptions(100, -1));
    }

    @Test
    void theQueryGroupsByRegionAndTheTripsTumblingWindowEnd() {
        String sql = MiniBatchRides.sql(RideAggregate.PASSENGERS, "trips_q00", 2000, 2500);
        assertTrue(sql.contains("event_time - MOD(event_time - 500, 2000) + 2000 AS window_end"), sql);
        assertTrue(sql.endsWith("GROUP BY region, window_end"), sql);
        assertTrue(MiniBatchRides.sql(RideAggregate.DRIVERS, "t", 2000, 0).contains("COUNT(DISTINCT driver)"));
    }

    @Test
    void aPlanWithoutTheLocalAggregateIsRefused() {
        MiniBatchRides.requireTwoPhase("MiniBatchAssigner LocalGroupAggregate GlobalGroupAggregate");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> MiniBatchRides.requireTwoPhase("MiniBatchAssigner GroupAggregate"));
        assertTrue(e.getMessage().contains("LocalGroupAggregate"));
    }

    @Test
    void updatesBecomeResultsAsTheWindowEmitsThemAndUpdateBeforesAreDropped() {
        List<Envelope> out = new ArrayList<>();
        Collector<Envelope> collector = collector(out);
        MiniBatchRides.ToResult toResult = new MiniBatchRides.ToResult(RideAggregate.PASSENGERS);
        toResult.flatMap(named(RowKind.UPDATE_BEFORE, "r1", 2000L, 3L, 7.0, 12.5), collector);
        assertTrue(out.isEmpty());
        toResult.flatMap(named(RowKind.UPDATE_AFTER, "r1", 2000L, 4L, 9.0, 14.0), collector);
        assertEquals(1, out.size());
        assertEquals(Envelope.RESULT, out.get(0).kind);
        assertEquals("r1", out.get(0).key);
        assertEquals(2000, out.get(0).timestamp);
        assertEquals(9, out.get(0).value);
        assertArrayEquals(new double[] {4, 9.0, 14.0}, out.get(0).fields);
    }

    @Test
    void thePlannersOperatorsGetTheQuerysNameAndThoseBehindTheShuffleTheWindowsGroup() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        DataStream<Long> ours = env.fromData(1L, 2L).map(x -> x).name("q00/rows");
        DataStream<Long> local = ours.map(x -> x).name("LocalGroupAggregate[3]");
        DataStream<Long> global = local.keyBy(x -> x).map(x -> x).name("GlobalGroupAggregate[5]");
        DataStream<Long> last = global.map(x -> x).name("TableToDataStream");
        MiniBatchRides.nameAndPlace(last.getTransformation(), "q00/", QueryPipelines.WINDOWS_GROUP);
        assertEquals("q00/TableToDataStream", last.getTransformation().getName());
        assertEquals("q00/GlobalGroupAggregate[5]", global.getTransformation().getName());
        assertEquals("q00/LocalGroupAggregate[3]", local.getTransformation().getName());
        assertEquals("q00/rows", ours.getTransformation().getName());  // the query's own: left as it is
        assertEquals(Optional.of(QueryPipelines.WINDOWS_GROUP), groupOf(last));
        assertEquals(Optional.of(QueryPipelines.WINDOWS_GROUP), groupOf(global));
        assertEquals(Optional.empty(), groupOf(local));  // before the shuffle: with the parse
        assertEquals(Optional.empty(), groupOf(ours));
    }

    private static Optional<String> groupOf(DataStream<Long> stream) {
        return stream.getTransformation().getSlotSharingGroup().map(SlotSharingGroup::getName);
    }

    private static Row named(RowKind kind, String region, long windowEnd, long trips, double aggregate,
                             double maxFare) {
        Row row = Row.withNames(kind);
        row.setField("region", region);
        row.setField("window_end", windowEnd);
        row.setField("trips", trips);
        row.setField("aggregate", aggregate);
        row.setField("max_fare", maxFare);
        return row;
    }

    private static <T> Collector<T> collector(List<T> out) {
        return new Collector<>() {
            @Override
            public void collect(T record) {
                out.add(record);
            }

            @Override
            public void close() {}
        };
    }
}
