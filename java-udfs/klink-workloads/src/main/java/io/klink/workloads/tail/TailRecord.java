package io.klink.workloads.tail;

/**
 * One record of a per-record-latency pipeline (a Flink POJO): its id (unique per query), when it was created
 * (the generator's event time, ms) and when the upstream task handed it on (wall clock, µs; each stage measures
 * its own latency from it). {@code copy} is 0 for the original, n for the n-th replayed copy. {@code queuedUs} adds up
 * its waits before each stage: from the upstream hand-over to the start of the stage's work on it (the exchange, the
 * input queue), the queueing delay the shared input queue (§3.2) is meant to cut.
 */
public class TailRecord {

    public long id;
    public long createdMs;
    public long handedOnUs;
    public int copy;
    public long queuedUs;
    /** The downstream task a balancing upstream chose for it (see Routes). */
    public int route;
    public String payload;

    public TailRecord() {}

    public TailRecord(long id, long createdMs, String payload) {
        this.id = id;
        this.createdMs = createdMs;
        this.payload = payload;
    }

    /** A stage starts its work on it: adds the wait since the upstream hand-over (none fresh from the source). */
    public void startWork(long nowUs) {
        if (handedOnUs > 0) {
            queuedUs += Math.max(0, nowUs - handedOnUs);
        }
    }

    /** A replayed copy of this record (a new object: the original may still be in flight in this JVM). */
    public TailRecord replayed() {
        TailRecord r = new TailRecord(id, createdMs, payload);
        r.copy = copy + 1;
        return r;
    }
}
