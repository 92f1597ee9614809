package io.klink.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.klink.generator.DelayModels;
import io.klink.generator.GeneratorArgs;
import io.klink.sampler.Samplers;
import io.klink.scheduler.policy.Policies;
import io.klink.workloads.Workloads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class CatalogTest {

    /** Written by the build (process-classes) before the tests run. */
    private static final Path EMITTED = Path.of("target", "klink-catalog.json");

    private static JsonNode emitted() throws IOException {
        return new ObjectMapper().readTree(Files.readString(EMITTED));
    }

    private static List<String> names(JsonNode entries) {
        List<String> names = new ArrayList<>();
        entries.forEach(e -> names.add(e.get("name").asText()));
        return names;
    }

    @Test
    void theEmittedFileIsTheCatalogOfTheseClasses() throws IOException {
        assertEquals(Json.write(Catalog.build()), Files.readString(EMITTED));
    }

    @Test
    void theEmittedCatalogListsEveryRegistryEntry() throws IOException {
        JsonNode catalog = emitted();
        assertEquals(Catalog.FORMAT, catalog.get("format").asInt());
        assertEquals(Policies.NAMES, names(catalog.get("policies")));
        assertEquals(Samplers.NAMES, names(catalog.get("samplers")));
        assertEquals(DelayModels.KINDS.stream().map(DelayModels.Kind::name).toList(), names(catalog.get("delayKinds")));
        assertEquals(Workloads.NAMES, names(catalog.get("workloads")));
    }

    @Test
    void theGeneratorMakesEventsOnlyForWorkloads() {
        // lrb-segments reads lrb's reports, ysb-records ysb's events; that every workload names generated events,
        // klinkctl's contract test checks
        assertTrue(Workloads.NAMES.containsAll(GeneratorArgs.WORKLOADS));
        assertEquals(List.of("ysb-records", "lrb-segments"), Workloads.NAMES.stream().filter(n -> !GeneratorArgs.WORKLOADS.contains(n))
                .toList());
    }

    @Test
    void everyDelayExampleIsItsKindWithItsDeclaredParameters() throws IOException {
        for (JsonNode kind : emitted().get("delayKinds")) {
            String name = kind.get("name").asText();
            assertTrue(kind.get("canonical").asText().startsWith(name + ":"), kind.toString());
            assertTrue(kind.get("parameters").size() > 0, kind.toString());
            kind.get("parameters").forEach(p -> assertTrue(kind.get("form").asText().contains("<" + p.asText() + ">")));
        }
    }
}
