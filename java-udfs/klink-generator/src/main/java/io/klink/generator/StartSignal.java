package io.klink.generator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;

/**
 * When event 0 is due (epoch ms): fixed on the command line ({@code --start-at-ms}), now ({@code null}), or
 * written later into a file by whoever launched the generator ({@code --start-at-file}). The file lets the
 * generator start its JVM and rehearse while the job it feeds is still being deployed, and learn the start
 * only once that job runs. The file holds one decimal epoch-ms number; it must appear whole (written
 * elsewhere and renamed into place), so a half-written file is never read.
 */
final class StartSignal {

    /** How often {@link #await} looks for the file. */
    static final long POLL_MS = 10;

    private final Long fixedMs;
    private final Path file;
    private volatile Long readMs;
    private volatile IllegalStateException unreadable;

    private StartSignal(Long fixedMs, Path file) {
        this.fixedMs = fixedMs;
        this.file = file;
    }

    static StartSignal of(GeneratorArgs a) {
        return new StartSignal(a.startAtMs, a.startAtFile);
    }

    /** The start if it is known by now: fixed, or read from the file once it exists (never throws). */
    OptionalLong known() {
        if (fixedMs != null) {
            return OptionalLong.of(fixedMs);
        }
        if (file == null) {
            return OptionalLong.empty();
        }
        if (readMs == null && unreadable == null) {
            try {
                readMs = read(file);
            } catch (IllegalStateException e) { // raised by await, on the main thread, not in the warm-up's
                unreadable = e;
            }
        }
        return readMs == null ? OptionalLong.empty() : OptionalLong.of(readMs);
    }

    /**
     * The start: fixed, now + 1 ms when none was given, or the file's once it appears (null if {@code stop}
     * turns true first).
     */
    Long await(BooleanSupplier stop) throws InterruptedException {
        if (fixedMs == null && file == null) {
            return System.currentTimeMillis() + 1;
        }
        while (known().isEmpty()) {
            if (unreadable != null) {
                throw unreadable;
            }
            if (stop.getAsBoolean()) {
                return null;
            }
            Thread.sleep(POLL_MS);
        }
        return known().getAsLong();
    }

    private static Long read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new IllegalStateException("--start-at-file " + file + ": " + e.getMessage(), e);
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("--start-at-file " + file + " holds '" + text
                    + "', not an epoch ms", e);
        }
    }
}
