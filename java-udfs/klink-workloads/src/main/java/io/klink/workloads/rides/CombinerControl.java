package io.klink.workloads.rides;

import io.klink.workloads.common.QueryPipelines;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Map;

/**
 * The actuator's channel (seed adcom-edbt21.txt §3.1: "the actuator periodically sends signals, i.e. the new
 * mini-batch interval, to the parallel instances of AdCom"): the controller writes the interval to one small
 * JSON file per query in the run directory (atomically: tmp + rename), and every instance of that query's
 * combiner polls the file's modification time and reads it when it changed. Decisions are appended to the run's
 * combiner.csv (header written by klinkctl/workloads/rides.py), one line per period and query.
 */
public final class CombinerControl {

    /** combiner.csv's columns; rho is every instance's utilisation, ';'-separated, in subtask order. */
    public static final String COLUMNS = "time_ms,query,period,rho,rho_avg,saturated,error,interval_ms,mode";

    private final Path file;
    private FileTime seen;

    public CombinerControl(Path runDir, String queryId) {
        this.file = runDir.resolve("combiner-" + queryId + ".json");
    }

    public static Path table(Path runDir) {
        return runDir.resolve("combiner.csv");
    }

    /** The actuator: tells every instance the interval of period {@code period}. */
    public void publish(long period, long intervalMs) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, QueryPipelines.JSON.writeValueAsString(
                Map.of("period", period, "intervalMs", intervalMs)));
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** An instance's poll: the interval published since the last call, or -1 if none is new. */
    public long poll() {
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            if (modified.equals(seen)) {
                return -1;
            }
            seen = modified;
            return QueryPipelines.JSON.readTree(Files.readAllBytes(file)).path("intervalMs").asLong(-1);
        } catch (java.nio.file.NoSuchFileException e) {
            return -1;
        } catch (IOException e) {
            throw new UncheckedIOException("reading the combiner's control file " + file, e);
        }
    }

    /** Appends one decision to combiner.csv (one short line with O_APPEND: whole even with several writers). */
    public static void log(Path runDir, long timeMs, String queryId, long period, double[] rho,
                           PiController.Decision decision, String mode) throws IOException {
        StringBuilder line = new StringBuilder().append(timeMs).append(',').append(queryId).append(',')
                .append(period).append(',');
        for (int i = 0; i < rho.length; i++) {
            line.append(i == 0 ? "" : ";").append(String.format(java.util.Locale.ROOT, "%.4f", rho[i]));
        }
        line.append(String.format(java.util.Locale.ROOT, ",%.4f,%s,%.4f,%d,%s%n", decision.averageUtilisation(),
                decision.saturated(), decision.error(), decision.intervalMs(), mode));
        Files.writeString(table(runDir), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }
}
