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
    void roleIsTheFirstOperatorWithoutQueryPrefixSourceMarkOrSubtask() {
        assertEquals("source", TaskNames.role("Source: q07/source -> q07/markers -> q07/filter -> q07/join (1/1)#0"));
        assertEquals("source", TaskNames.role("Source: q07/source"));
        assertEquals("window", TaskNames.role("q07/window -> q07/output -> q07/metrics-sink"));
        assertEquals("stats-window", TaskNames.role("q03/stats-window -> q03/stats-rows (2/4)#1"));
        assertEquals("toll-window", TaskNames.role("q03/toll-window -> q03/output -> q03/metrics-sink: Writer"));
        assertEquals("metrics-sink: Writer", TaskNames.role("q03/metrics-sink: Writer (1/1)#0"));
    }

    @Test
    void roleOfANameWithoutQueryPrefixIsTheFirstOperator() {
        assertEquals("Map", TaskNames.role("Map -> Filter (1/2)#0"));
        assertEquals("unknown", TaskNames.role(""));
        assertEquals("unknown", TaskNames.role(null));
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
        assertEquals("source", TaskNames.kind(true, false));
        assertEquals("window", TaskNames.kind(false, true));
        assertEquals("op", TaskNames.kind(false, false));
    }
}
