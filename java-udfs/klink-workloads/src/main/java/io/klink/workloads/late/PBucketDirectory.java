package io.klink.workloads.late;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Where an AION operator instance keeps its p-buckets: on its own TaskManager's disk, under one of Flink's
 * {@code io.tmp.dirs} (spread over them by subtask), as {@code <tmp dir>/klink-p-buckets/<run id>/<query>-<subtask>}.
 * The run id keeps runs apart; the instance deletes its own directory on close, and the run's once it is empty.
 */
public final class PBucketDirectory {

    /** The folder under a TaskManager's temp dir that holds every run's p-buckets. */
    public static final String ROOT = "klink-p-buckets";
    /** An instance refuses to start (its job fails) with less usable space than this on its disk. */
    public static final long MIN_FREE_BYTES = 512L * 1024 * 1024;
    /** A run id names a directory: no separators, no leading dot. */
    private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]*");

    private PBucketDirectory() {}

    /** Throws if {@code runId} cannot name a directory of its own. */
    public static void checkRunId(String runId) {
        if (runId == null || !RUN_ID.matcher(runId).matches()) {
            throw new IllegalArgumentException("aion needs a runId usable as a directory name ("
                    + RUN_ID.pattern() + "), got " + runId);
        }
    }

    /** The temp dir an instance uses: the subtask's turn over the TaskManager's {@code io.tmp.dirs}. */
    static Path tmpDir(String[] tmpDirs, int subtask) {
        if (tmpDirs == null || tmpDirs.length == 0) {
            throw new IllegalStateException("the TaskManager has no io.tmp.dirs for AION's p-buckets");
        }
        return Path.of(tmpDirs[subtask % tmpDirs.length]);
    }

    /** {@code <tmp dir>/klink-p-buckets/<run id>/<instance>} (not created). */
    static Path of(Path tmpDir, String runId, String instance) {
        return tmpDir.resolve(ROOT).resolve(runId).resolve(instance);
    }

    /**
     * The instance's p-bucket directory (not created yet; the root is), after checking that its disk has at least
     * {@code minFreeBytes} usable; otherwise an IOException whose message says what is missing where.
     */
    public static Path choose(String[] tmpDirs, String runId, String instance, int subtask, long minFreeBytes)
            throws IOException {
        Path root = Files.createDirectories(tmpDir(tmpDirs, subtask).resolve(ROOT));
        long free = Files.getFileStore(root).getUsableSpace();  // the disk of the root, which may be a mount of its own
        if (free < minFreeBytes) {
            throw new IOException(String.format("AION's p-buckets need at least %d MiB free on the TaskManager's "
                    + "disk of %s (io.tmp.dirs); only %d MiB are free", minFreeBytes >> 20, root, free >> 20));
        }
        return of(root.getParent(), runId, instance);
    }

    /** Removes the run's directory (the instance directory's parent) if no other instance still uses it. */
    public static void removeRunDirectoryIfEmpty(Path instanceDir) throws IOException {
        try {
            Files.deleteIfExists(instanceDir.getParent());
        } catch (DirectoryNotEmptyException stillUsed) {
            // another instance of the run on this TaskManager deletes it when it closes
        }
    }
}
