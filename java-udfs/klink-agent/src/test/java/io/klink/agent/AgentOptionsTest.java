package io.klink.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class AgentOptionsTest {

    @Test
    void parsesKeyValuePairsInOrder() {
        AgentOptions options = AgentOptions.parse(" statusDir=/tmp/x ");
        assertEquals(Path.of("/tmp/x"), options.statusDir());
        assertEquals("/tmp/x", options.get("statusDir", "none"));
    }

    @Test
    void emptyArgumentsMeanNoOptions() {
        assertTrue(AgentOptions.parse(null).values().isEmpty());
        assertTrue(AgentOptions.parse("  ").values().isEmpty());
        assertNull(AgentOptions.parse("").statusDir());
    }

    @Test
    void missingValueIsRejectedWithTheOffendingPair() {
        IllegalArgumentException error =
                assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("statusDir"));
        assertTrue(error.getMessage().contains("'statusDir'"), error.getMessage());
    }

    @Test
    void unknownKeysAreRejectedByName() {
        IllegalArgumentException error =
                assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("statusDir=/x,stautsDir=/y"));
        assertTrue(error.getMessage().contains("'stautsDir'"), error.getMessage());
    }

    @Test
    void theControlChannelNeedsAnHttpUrlAndTheStacksToken() {
        assertNull(AgentOptions.parse("statusDir=/x").channel("h:1", "v"));
        assertTrue(AgentOptions.parse("control=http://127.0.0.1:8090,stack=ab12").channel("h:1", "v") != null);
        for (String bad : new String[] {"control=ftp://127.0.0.1:1,stack=a", "control=http://127.0.0.1:1",
                "control=http//x,stack=a"}) {
            IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                    () -> AgentOptions.parse(bad).channel("h:1", "v"), bad);
            assertTrue(error.getMessage().contains("control"), error.getMessage());
        }
    }
}
