package io.klink.generator;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Replays a real DEBS 2015 CSV (17 columns, optional header) instead of synthetic trips: its first
 * {@link #MAX_ROWS} rows, in file order and cyclically, each sent with the event time appended as the
 * 18th column (the schedule, the delay models and the measurement stay the generator's). Every row is
 * checked up front; a wrong schema is a {@link UsageException} naming the line.
 */
public final class NytReplayCodec implements EventCodec {

    public static final int MAX_ROWS = 500_000;
    static final int COLUMNS = 17;
    /** trip_time_in_secs .. pickup/dropoff coordinates, then fare_amount .. total_amount. */
    private static final int[] NUMERIC = {4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16};

    private final List<byte[]> rows;
    private long next;

    public NytReplayCodec(Path file) throws IOException, UsageException {
        this.rows = load(file);
    }

    static List<byte[]> load(Path file) throws IOException, UsageException {
        List<byte[]> rows = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            String line;
            int number = 0;
            while (rows.size() < MAX_ROWS && (line = in.readLine()) != null) {
                number++;
                if (number == 1 && line.startsWith("medallion")) {
                    continue;
                }
                check(file, number, line);
                rows.add((line.strip() + ",").getBytes(StandardCharsets.US_ASCII));
            }
        }
        if (rows.isEmpty()) {
            throw new UsageException("--data " + file + " has no trips");
        }
        return rows;
    }

    private static void check(Path file, int number, String line) throws UsageException {
        String[] c = line.strip().split(",", -1);
        if (c.length != COLUMNS) {
            throw new UsageException("--data " + file + " line " + number + ": " + c.length
                    + " columns, a DEBS 2015 trip has " + COLUMNS);
        }
        for (int i : NUMERIC) {
            try {
                Double.parseDouble(c[i]);
            } catch (NumberFormatException e) {
                throw new UsageException("--data " + file + " line " + number + ": column " + (i + 1)
                        + " is not a number: " + c[i]);
            }
        }
    }

    /** The next row's index (file order, cyclic); one draw from the stream keeps the per-topic streams aligned. */
    @Override
    public long draw(SplittableRandom rng) {
        rng.nextLong();
        return next++ % rows.size();
    }

    @Override
    public byte[] encode(long packed, long eventTimeMs) {
        byte[] row = rows.get((int) packed);
        byte[] time = Long.toString(eventTimeMs).getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[row.length + time.length];
        System.arraycopy(row, 0, out, 0, row.length);
        System.arraycopy(time, 0, out, row.length, time.length);
        return out;
    }

    public int rows() {
        return rows.size();
    }
}
