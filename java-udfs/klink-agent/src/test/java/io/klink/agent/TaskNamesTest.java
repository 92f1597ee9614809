package io.klink.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TaskNamesTest {

    @Test
    void queryIdIsTheFirstOperatorsPrefix() {
        assertEquals("q07", TaskNames.queryId("Source: q07/source -> q07/markers -> q07/filter (1/1)#0"));
        assertEquals("q07", TaskNames.queryId("q07/window -> q07/output -> q07/metrics-sink: Writer (2/4)#3"));
        assertEquals("q12", TaskNames.queryId("q12/join"));
    }

    @Test
    void nameWithoutPrefixIsItsOwnQuery() {
        assertEquals("Map", TaskNames.queryId("Map (1/2)#0"));
        assertEquals("unknown", TaskNames.queryId(""));
        assertEquals("unknown", TaskNames.queryId(null));
    }

    @Test
    void subtaskSuffixIsStripped() {
        assertEquals("q01/window -> q01/output", TaskNames.stripSubtask("q01/window -> q01/output (1/1)#0"));
        assertEquals("a (b)", TaskNames.stripSubtask("a (b)"));
    }

    @Test
    void kinds() {
        assertTrue(TaskNames.isSource("org.apache.flink.streaming.runtime.tasks.SourceOperatorStreamTask"));
        assertFalse(TaskNames.isSource("org.apache.flink.streaming.runtime.tasks.OneInputStreamTask"));
        assertTrue(TaskNames.isWindow("q01/window -> q01/output"));
        assertTrue(TaskNames.isWindow("q01/stats-window -> q01/stats-rows"));
        assertTrue(TaskNames.isWindow("q01/toll-window -> q01/output -> q01/metrics-sink: Writer (1/1)#0"));
        assertFalse(TaskNames.isWindow("Source: q01/source -> q01/markers -> q01/windowless"));
        assertFalse(TaskNames.isWindow("Source: q01/source"));
        assertTrue(TaskNames.isSink("q01/metrics-sink: Writer"));
        assertEquals("q01:win#2", TaskNames.label("q01", false, true, 2));
        assertEquals("q01:src#0", TaskNames.label("q01", true, false, 0));
    }
}
