package io.klink.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KlinkAgentTest {

    @Test
    void versionIsStampedByTheBuild() {
        assertNotEquals("unknown", KlinkAgent.version());
        assertTrue(KlinkAgent.version().matches("\\d+\\.\\d+\\.\\d+.*"), KlinkAgent.version());
    }

    @Test
    void premainPublishesVersionAndWritesStatusFile(@TempDir Path dir) throws Exception {
        KlinkAgent.premain("statusDir=" + dir, null);
        assertEquals(KlinkAgent.version(), System.getProperty(KlinkAgent.VERSION_PROPERTY));
        Path status = dir.resolve(ProcessHandle.current().pid() + ".json");
        String json = Files.readString(status);
        assertTrue(json.contains("\"version\": \"" + KlinkAgent.version() + "\""), json);
    }
}
