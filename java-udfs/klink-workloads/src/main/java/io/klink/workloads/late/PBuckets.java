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
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The persistent buckets (p-buckets, §3.1) of one AION window operator: one append-only file per window under a
 * directory of the operator instance's own ({@link PBucketDirectory}), each event as (key, value, event time, payload). Only
 * the {@link IoScheduler}'s thread calls the methods that touch a file; {@link #bytes()} may be read from any thread
 * (the operator's {@code pBucketBytes} gauge). The paper serialises JSON (§4, "Staging and serialization"); a
 * binary record is used here (a named deviation, docs/late-state.md).
 */
public final class PBuckets {

    private final Path dir;
    private final AtomicLong bytes = new AtomicLong();

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
                writePayload(out, e.payload());
            }
        }
        long written = Files.size(file) - before;
        bytes.addAndGet(written);
        return written;
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
                events.add(new LateEvent(key, in.readDouble(), in.readLong(), readPayload(in)));
            }
        }
    }

    /** Length (-1: none) and UTF-8 bytes (writeUTF would stop at 64 KB). */
    private static void writePayload(DataOutputStream out, String payload) throws IOException {
        if (payload == null) {
            out.writeInt(-1);
            return;
        }
        byte[] bytes = payload.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static String readPayload(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            return null;
        }
        byte[] bytes = in.readNBytes(length);
        if (bytes.length != length) {
            throw new EOFException("p-bucket record cut short in its payload");
        }
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    public void delete(long windowEnd) throws IOException {
        Path file = file(windowEnd);
        long size = Files.exists(file) ? Files.size(file) : 0;
        if (Files.deleteIfExists(file)) {
            bytes.addAndGet(-size);
        }
    }

    /** Bytes of every p-bucket file, as written and deleted through this object. */
    public long bytes() {
        return bytes.get();
    }

    /** Deletes every p-bucket and the directory. */
    public void deleteAll() throws IOException {
        bytes.set(0);
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
