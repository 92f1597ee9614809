package io.klink.agent;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends rows to one CSV file of a run directory (the header only when the file is new: several
 * TaskManagers append to the same file). Every row is flushed at once, so an interrupted run keeps
 * every row written so far. After a write error the appender says so once and drops later rows.
 */
final class CsvAppender implements AutoCloseable {

    private final Path file;
    private BufferedWriter out;

    /** @throws IllegalArgumentException if the file cannot be created or opened */
    CsvAppender(Path dir, String name, String header) {
        this.file = dir.resolve(name);
        try {
            Files.createDirectories(dir);
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            // TaskManagers open the same file at about the same moment (a run's start or end): the lock lets
            // exactly one of them find it empty and write the header.
            try (FileLock ignored = channel.lock()) {
                if (channel.size() == 0) {
                    channel.write(ByteBuffer.wrap((header + System.lineSeparator()).getBytes(StandardCharsets.UTF_8)));
                }
            } catch (IOException e) {
                channel.close();
                throw e;
            }
            out = new BufferedWriter(Channels.newWriter(channel, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write " + file + ": " + e.getMessage());
        }
    }

    void append(String row) {
        if (out == null) {
            return;
        }
        try {
            out.write(row);
            out.newLine();
            out.flush();
        } catch (IOException e) {
            System.err.println("klink-scheduler: cannot append to " + file + " (" + e.getMessage()
                    + "); no more rows for this run");
            close();
        }
    }

    @Override
    public void close() {
        if (out == null) {
            return;
        }
        try {
            out.close();
        } catch (IOException ignored) {
            // the run's directory may be gone already
        }
        out = null;
    }
}
