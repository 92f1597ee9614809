package io.klink.workloads.late;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where an AION instance keeps its p-buckets, the free-space check its open() makes, and their byte count. */
class PBucketDirectoryTest {

    @TempDir
    Path tmp;

    @Test
    void eachInstanceGetsADirectoryOfItsRunUnderItsTaskManagersTempDirs() throws IOException {
        String[] tmpDirs = {tmp.resolve("a").toString(), tmp.resolve("b").toString()};
        assertEquals(tmp.resolve("a/klink-p-buckets/average-aion-20261127-010000/q00-0"),
                PBucketDirectory.choose(tmpDirs, "average-aion-20261127-010000", "q00-0", 0, 0));
        assertEquals(tmp.resolve("b/klink-p-buckets/r1/q03-1"), PBucketDirectory.choose(tmpDirs, "r1", "q03-1", 1, 0));
        assertEquals(tmp.resolve("a/klink-p-buckets/r1/q00-2"), PBucketDirectory.choose(tmpDirs, "r1", "q00-2", 2, 0));
        assertThrows(IllegalStateException.class, () -> PBucketDirectory.choose(new String[0], "r1", "q00-0", 0, 0));
    }

    @Test
    void openFailsInOneLineWhenTheDiskHasLessThanTheMinimumFree() {
        String[] tmpDirs = {tmp.toString()};
        IOException refused = assertThrows(IOException.class,
                () -> PBucketDirectory.choose(tmpDirs, "r1", "q00-0", 0, Long.MAX_VALUE));
        assertTrue(refused.getMessage().matches("AION's p-buckets need at least \\d+ MiB free on the TaskManager's "
                + "disk of " + tmp.resolve(PBucketDirectory.ROOT) + " \\(io.tmp.dirs\\); only \\d+ MiB are free"),
                refused.getMessage());
        assertFalse(Files.exists(tmp.resolve(PBucketDirectory.ROOT).resolve("r1")), "no run directory for it");
    }

    @Test
    void runIdsThatAreNoDirectoryNameAreRefused() {
        PBucketDirectory.checkRunId("average-aion-20261127-010000-2");
        for (String bad : new String[] {null, "", "..", ".hidden", "a/b", "a\\b"}) {
            assertThrows(IllegalArgumentException.class, () -> PBucketDirectory.checkRunId(bad), bad);
        }
    }

    @Test
    void theRunDirectoryGoesWithItsLastInstance() throws IOException {
        Path first = PBucketDirectory.choose(new String[] {tmp.toString()}, "r1", "q00-0", 0, 0);
        Path second = first.resolveSibling("q01-0");
        PBuckets a = new PBuckets(first);
        PBuckets b = new PBuckets(second);
        a.deleteAll();
        PBucketDirectory.removeRunDirectoryIfEmpty(first);
        assertTrue(Files.exists(second), "the other instance's directory stays");
        b.deleteAll();
        PBucketDirectory.removeRunDirectoryIfEmpty(second);
        assertFalse(Files.exists(first.getParent()));
        assertTrue(Files.exists(tmp.resolve(PBucketDirectory.ROOT)));
    }

    @Test
    void theBytesCountWhatIsOnDiskAsWindowsAreWrittenAndDeleted() throws IOException {
        PBuckets buckets = new PBuckets(tmp.resolve("q00-0"));
        long written = buckets.append(1000, List.of(new LateEvent("w1", 1, 10), new LateEvent("w2", 2, 20)));
        written += buckets.append(2000, List.of(new LateEvent("w1", 3, 1010)));
        assertEquals(Files.size(tmp.resolve("q00-0/w1000.pb")) + Files.size(tmp.resolve("q00-0/w2000.pb")), written);
        assertEquals(written, buckets.bytes());
        buckets.delete(1000);
        assertEquals(Files.size(tmp.resolve("q00-0/w2000.pb")), buckets.bytes());
        buckets.delete(1000);
        assertEquals(Files.size(tmp.resolve("q00-0/w2000.pb")), buckets.bytes(), "deleting twice counts once");
        buckets.deleteAll();
        assertEquals(0, buckets.bytes());
    }
}
