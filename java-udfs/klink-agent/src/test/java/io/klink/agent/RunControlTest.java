package io.klink.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RunControlTest {

    @Test
    void parsesPolicyParamsAndRun() {
        RunControl c = RunControl.parse(
                "{\"policy\": \"Klink\", \"params\": {\"r\": \"120\", \"C\": 2, \"f\": 0.9, \"strict\": true},"
                        + " \"run\": \"ysb-klink-1\"}\n");
        assertEquals("klink", c.policy());
        assertEquals(Map.of("r", "120", "C", "2", "f", "0.9", "strict", "true"), c.params());
        assertEquals("ysb-klink-1", c.run());
    }

    @Test
    void defaultNeedsNothingElse() {
        RunControl c = RunControl.parse("{\"policy\":\"default\"}");
        assertTrue(c.isDefault());
        assertNull(c.run());
        assertTrue(c.params().isEmpty());
    }

    @Test
    void unknownKeysAndParametersAreRejectedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RunControl.parse(
                "{\"policy\": \"rr\", \"run\": \"/x\", \"params\": {\"quantm\": 2}}"));
        assertTrue(e.getMessage().contains("'quantm'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RunControl.parse(
                "{\"policy\": \"rr\", \"runn\": \"/x\"}"));
        assertTrue(e.getMessage().contains("'runn'"), e.getMessage());
    }

    @Test
    void stringEscapes() {
        RunControl c = RunControl.parse("{\"policy\":\"rr\",\"run\":\"/a\\\"b\\u0041\\/c\"}");
        assertEquals("/a\"bA/c", c.run());
    }

    @Test
    void malformedFilesAreRejectedWithAReason() {
        for (String bad : new String[] {
                "", "   ", "[]", "{", "{\"policy\": }", "{\"policy\": \"rr\", \"run\": \"/x\"} trailing",
                "{\"params\": {}}", "{\"policy\": 3}", "{\"policy\": \"rr\"}",
                "{\"policy\": \"rr\", \"run\": \"/x\", \"params\": [1]}",
                "{\"policy\": \"rr\", \"run\": \"/x\", \"params\": {\"r\": {\"a\": 1}}}",
                "{\"policy\": \"rr\", \"run\": 5}", "{'policy': 'rr'}"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RunControl.parse(bad), bad);
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), bad);
        }
    }
}
