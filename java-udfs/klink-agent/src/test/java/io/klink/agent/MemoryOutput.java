package io.klink.agent;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A run's output kept in memory: each file's lines, header first, as klinkctl would write them. */
final class MemoryOutput implements RunOutput {

    final Map<String, List<String>> files = new LinkedHashMap<>();
    int flushes;
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
    public void close() {
        closed = true;
    }

    List<String> lines(String file) {
        return files.getOrDefault(file, List.of());
    }
}
