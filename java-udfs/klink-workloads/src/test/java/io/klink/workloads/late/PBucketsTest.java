package io.klink.workloads.late;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A p-bucket gives back every event as written, payload included, and counts its bytes. */
class PBucketsTest {

    @TempDir
    Path tmp;

    @Test
    void eventsComeBackAsWrittenWithAndWithoutPayload() throws Exception {
        PBuckets buckets = new PBuckets(tmp.resolve("q00-0"));
        String large = "p".repeat(70_000);  // beyond writeUTF's 64 KB
        List<LateEvent> events = List.of(new LateEvent("w1", 3, 10), new LateEvent("w2", 4.5, 20, large),
                new LateEvent("w3", 0, 30, "é"));
        long written = buckets.append(1000, events);
        assertTrue(written > 70_000);
        assertEquals(events, buckets.read(1000));
        assertEquals(written, buckets.bytes());
        buckets.delete(1000);
        assertEquals(0, buckets.bytes());
        assertEquals(List.of(), buckets.read(1000));
    }
}
