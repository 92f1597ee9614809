package io.klink.workloads.ysb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.klink.workloads.common.QueryPipelines;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

/** --placement: split moves each query's window side into its own slot-sharing group, apart from its source. */
class PlacementTest {

    private static Map<String, String> groupsOf(String placement) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        QueryPipelines.Run run = new QueryPipelines.Run("localhost:9092", "r1", "r1-metrics", 1000, 200, 200, 0, 0, null,
                false, placement, List.of(new QueryPipelines.Query("q00", "r1-q00", 0)));
        YsbJob.addQuery(env, run, new YsbJob.Config("unused", 3000), run.queries().get(0),
                Map.of("c0", List.of("a0", "a1")));
        Map<String, String> groups = new TreeMap<>();
        for (StreamNode node : env.getStreamGraph().getStreamNodes()) {
            groups.put(node.getOperatorName(), node.getSlotSharingGroup());
        }
        return groups;
    }

    @Test
    void splitPutsTheWindowAndWhatFollowsApartFromTheSource() {
        Map<String, String> groups = groupsOf(QueryPipelines.SPLIT);
        for (Map.Entry<String, String> node : groups.entrySet()) {
            boolean windowSide = node.getKey().startsWith("q00/metrics-sink") || node.getKey().matches("q00/(window|output)");
            assertEquals(windowSide ? QueryPipelines.WINDOWS_GROUP : "default", node.getValue(), node.getKey());
        }
        assertEquals("default", groups.get("Source: q00/source"), groups.toString());
    }

    @Test
    void byQueryEverythingSharesTheDefaultGroup() {
        assertEquals(List.of("default"), groupsOf("query").values().stream().distinct().toList());
    }
}
