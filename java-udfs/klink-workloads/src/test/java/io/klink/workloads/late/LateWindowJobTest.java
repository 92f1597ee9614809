package io.klink.workloads.late;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.klink.metrics.Envelope;
import org.junit.jupiter.api.Test;

/** The late-event jobs' parse and their late states' Flink state backends. */
class LateWindowJobTest {

    @Test
    void parsesWordAndValueAndMarksMalformedEvents() {
        Envelope e = new LateWindowJob.Parse().map(Envelope.data("w7,532,1000", 1000, 0));
        assertEquals("w7", e.key);
        assertArrayEquals(new double[] {532}, e.fields);
        assertNull(new LateWindowJob.Parse().map(Envelope.data("w7,x,1000", 1000, 0)).key);
        assertNull(new LateWindowJob.Parse().map(Envelope.data("7,1,1000", 1000, 0)).key);
        assertNull(e.payload);
    }

    @Test
    void keepsThePayloadOfAFourColumnEvent() {
        Envelope e = new LateWindowJob.Parse().map(Envelope.data("w3,17,abcxyz,1000", 1000, 0));
        assertEquals("w3", e.key);
        assertArrayEquals(new double[] {17}, e.fields);
        assertEquals("abcxyz", e.payload);
    }

    @Test
    void eachLateStateRunsOnItsStateBackend() {
        assertEquals("hashmap", LateWindowJob.stateBackend("flink-heap"));
        assertEquals("rocksdb", LateWindowJob.stateBackend("flink-rocksdb"));
        assertEquals("forst", LateWindowJob.stateBackend("flink-forst"));
        assertEquals("hashmap", LateWindowJob.stateBackend("aion"));
        assertThrows(IllegalArgumentException.class, () -> LateWindowJob.stateBackend("flink-magic"));
    }
}
