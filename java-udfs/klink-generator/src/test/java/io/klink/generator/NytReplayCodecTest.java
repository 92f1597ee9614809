package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NytReplayCodecTest {

    static final String ROW_A = "A1,H1,2013-01-01 00:00:00,2013-01-01 00:02:00,120,0.44,-73.956528,40.716976,"
            + "-73.962440,40.715008,CSH,3.50,0.50,0.50,0.00,0.00,4.50";
    static final String ROW_B = ROW_A.replace("A1,H1", "A2,H2");

    @TempDir
    Path dir;

    private Path file(String... lines) throws Exception {
        Path f = dir.resolve("trips.csv");
        Files.write(f, java.util.List.of(lines), StandardCharsets.US_ASCII);
        return f;
    }

    @Test
    void replaysRowsInOrderCyclicallyWithTheEventTimeAppended() throws Exception {
        NytReplayCodec codec = new NytReplayCodec(file("medallion,hack_license,...", ROW_A, ROW_B));
        SplittableRandom rng = new SplittableRandom(1);
        assertEquals(2, codec.rows());
        String first = new String(codec.encode(codec.draw(rng), 1234), StandardCharsets.US_ASCII);
        String second = new String(codec.encode(codec.draw(rng), 1235), StandardCharsets.US_ASCII);
        String third = new String(codec.encode(codec.draw(rng), 1236), StandardCharsets.US_ASCII);
        assertEquals(ROW_A + ",1234", first);
        assertEquals(ROW_B + ",1235", second);
        assertEquals(ROW_A + ",1236", third);
    }

    @Test
    void aWrongSchemaNamesTheLine() throws Exception {
        Path shortRow = file(ROW_A, "A1,H1,2013-01-01 00:00:00,120");
        UsageException e = assertThrows(UsageException.class, () -> new NytReplayCodec(shortRow));
        assertTrue(e.getMessage().contains("line 2: 4 columns, a DEBS 2015 trip has 17"), e.getMessage());
        Path text = file(ROW_A.replace(",3.50,", ",cash,"));
        e = assertThrows(UsageException.class, () -> new NytReplayCodec(text));
        assertTrue(e.getMessage().contains("line 1: column 12 is not a number: cash"), e.getMessage());
        assertThrows(UsageException.class, () -> new NytReplayCodec(file("medallion,hack_license")));
    }
}
