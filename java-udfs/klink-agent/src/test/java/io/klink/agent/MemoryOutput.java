package io.klink.agent;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A run's output kept in memory: each file's lines, header first, as klinkctl would write them. */
final class MemoryOutput implements RunOutput {

    final Map<String, List<String>> files = new LinkedHashMap<>();
    int flushes;
    /** What {@link #exchange} answers: the other TaskManagers' snapshots; what it was sent, in order. */
    String forwarded = "";
    final List<String> sent = new ArrayList<>();
    boolean closed;

    @Override
    public void append(String file, String header, String row) {
        files.computeIfAbsent(file, f -> new ArrayList<>(List.of(header))).add(row);
    }

    @Override
    public void flush() {
        flushes++;
    }

    @Override
    public String exchange(String snapshots) {
        sent.add(snapshots);
        return forwarded;
    }

    @Override
    public void close() {
        closed = true;
    }

    List<String> lines(String file) {
        return files.getOrDefault(file, List.of());
    }
}
