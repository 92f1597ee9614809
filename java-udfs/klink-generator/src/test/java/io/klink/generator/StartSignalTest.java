package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StartSignalTest {

    @TempDir
    Path dir;

    private StartSignal signal(String... flags) throws Exception {
        String[] args = new String[flags.length + 8];
        System.arraycopy(new String[]{"--bootstrap", "b:1", "--topics", "t", "--rate", "1", "--duration", "1s"}, 0,
                args, 0, 8);
        System.arraycopy(flags, 0, args, 8, flags.length);
        return StartSignal.of(GeneratorArgs.parse(args));
    }

    @Test
    void aFixedStartIsKnownAtOnce() throws Exception {
        StartSignal fixed = signal("--start-at-ms", "1234");
        assertEquals(1234L, fixed.known().getAsLong());
        assertEquals(1234L, fixed.await(() -> false));
    }

    @Test
    void theFileIsWaitedForAndReadOnceItAppears() throws Exception {
        Path file = dir.resolve("start-at");
        StartSignal signal = signal("--start-at-file", file.toString());
        assertTrue(signal.known().isEmpty());
        Thread writer = new Thread(() -> {
            try {
                Thread.sleep(100);
                Path tmp = Files.writeString(dir.resolve("start-at.tmp"), "1795671116619\n");
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        writer.start();
        assertEquals(1795671116619L, signal.await(() -> false));
        writer.join();
    }

    @Test
    void aStopWhileWaitingGivesNoStart() throws Exception {
        StartSignal signal = signal("--start-at-file", dir.resolve("never").toString());
        long[] asked = new long[1];
        assertNull(signal.await(() -> ++asked[0] > 3));
    }

    @Test
    void aFileThatIsNotANumberFailsTheWaitNotTheRehearsal() throws Exception {
        Path file = Files.writeString(dir.resolve("start-at"), "soon");
        StartSignal signal = signal("--start-at-file", file.toString());
        assertTrue(signal.known().isEmpty()); // the warm-up's watcher asks this: it must not throw
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> signal.await(() -> false));
        assertTrue(e.getMessage().contains("not an epoch ms"), e.getMessage());
    }

    @Test
    void bothStartsAreRefused() {
        UsageException e = assertThrows(UsageException.class,
                () -> signal("--start-at-ms", "1", "--start-at-file", "f"));
        assertTrue(e.getMessage().contains("exclude each other"), e.getMessage());
    }
}
