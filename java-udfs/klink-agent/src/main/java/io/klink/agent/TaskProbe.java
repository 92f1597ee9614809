package io.klink.agent;

/** Runtime counters of one task, read from the scheduler thread (Flink-backed in production, fakes in tests). */
public interface TaskProbe {

    long recordsIn();

    long recordsOut();

    /** Bytes of the buffers waiting in the task's input gates (0 for a source task). */
    long queuedBytes();

    /** Bytes consumed from the input gates so far (cumulative; 0 for a source task). */
    long bytesIn();
}
