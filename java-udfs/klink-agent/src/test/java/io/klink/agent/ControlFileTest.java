package io.klink.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ControlFileTest {

    @Test
    void parsesPolicyParamsAndRunDir() {
        ControlFile c = ControlFile.parse(
                "{\"policy\": \"Klink\", \"params\": {\"r\": \"120\", \"C\": 2, \"f\": 0.9, \"strict\": true},"
                        + " \"run_dir\": \"/abs/results/run-1\"}\n");
        assertEquals("klink", c.policy());
        assertEquals(Map.of("r", "120", "C", "2", "f", "0.9", "strict", "true"), c.params());
        assertEquals(Path.of("/abs/results/run-1"), c.runDir());
    }

    @Test
    void defaultNeedsNothingElse() {
        ControlFile c = ControlFile.parse("{\"policy\":\"default\"}");
        assertTrue(c.isDefault());
        assertNull(c.runDir());
        assertTrue(c.params().isEmpty());
    }

    @Test
    void unknownKeysAndParametersAreRejectedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ControlFile.parse(
                "{\"policy\": \"rr\", \"run_dir\": \"/x\", \"params\": {\"quantm\": 2}}"));
        assertTrue(e.getMessage().contains("'quantm'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ControlFile.parse(
                "{\"policy\": \"rr\", \"rundir\": \"/x\"}"));
        assertTrue(e.getMessage().contains("'rundir'"), e.getMessage());
    }

    @Test
    void stringEscapes() {
        ControlFile c = ControlFile.parse("{\"policy\":\"rr\",\"run_dir\":\"/a\\\"b\\u0041\\/c\"}");
        assertEquals(Path.of("/a\"bA/c"), c.runDir());
    }

    @Test
    void malformedFilesAreRejectedWithAReason() {
        for (String bad : new String[] {
                "", "   ", "[]", "{", "{\"policy\": }", "{\"policy\": \"rr\", \"run_dir\": \"/x\"} trailing",
                "{\"params\": {}}", "{\"policy\": 3}", "{\"policy\": \"rr\"}",
                "{\"policy\": \"rr\", \"run_dir\": \"/x\", \"params\": [1]}",
                "{\"policy\": \"rr\", \"run_dir\": \"/x\", \"params\": {\"r\": {\"a\": 1}}}",
                "{\"policy\": \"rr\", \"run_dir\": 5}", "{'policy': 'rr'}"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ControlFile.parse(bad), bad);
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), bad);
        }
    }
}
