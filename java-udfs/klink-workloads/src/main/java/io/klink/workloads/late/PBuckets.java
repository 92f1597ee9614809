package io.klink.workloads.late;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The persistent buckets (p-buckets, §3.1) of one AION window operator: one append-only file per window under a
 * directory klinkctl created for the run, each event as (key, value, event time). Only the {@link IoScheduler}'s
 * thread calls the methods that touch a file. The paper serialises JSON (§4, "Staging and serialization"); a
 * binary record is used here (a named deviation, docs/late-state.md).
 */
public final class PBuckets {

    private final Path dir;

    public PBuckets(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the p-bucket directory " + dir, e);
        }
    }

    public Path dir() {
        return dir;
    }

    private Path file(long windowEnd) {
        return dir.resolve("w" + windowEnd + ".pb");
    }

    /** Appends {@code events} to the window's p-bucket; returns the bytes written. */
    public long append(long windowEnd, List<LateEvent> events) throws IOException {
        Path file = file(windowEnd);
        long before = Files.exists(file) ? Files.size(file) : 0;
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND)))) {
            for (LateEvent e : events) {
                out.writeUTF(e.key());
                out.writeDouble(e.value());
                out.writeLong(e.timestamp());
            }
        }
        return Files.size(file) - before;
    }

    /** Every event of the window's p-bucket in the order written (empty if it has none). */
    public List<LateEvent> read(long windowEnd) throws IOException {
        Path file = file(windowEnd);
        List<LateEvent> events = new ArrayList<>();
        if (!Files.exists(file)) {
            return events;
        }
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            while (true) {
                String key;
                try {
                    key = in.readUTF();
                } catch (EOFException end) {
                    return events;
                }
                events.add(new LateEvent(key, in.readDouble(), in.readLong()));
            }
        }
    }

    public void delete(long windowEnd) throws IOException {
        Files.deleteIfExists(file(windowEnd));
    }

    /** Bytes of every p-bucket file. */
    public long bytes() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.mapToLong(p -> p.toFile().length()).sum();
        }
    }

    /** Deletes every p-bucket and the directory. */
    public void deleteAll() throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
