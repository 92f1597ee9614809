package io.klink.workloads.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.klink.workloads.Workloads;
import io.klink.workloads.nyt.NytJob;
import org.junit.jupiter.api.Test;

class JobConfigTest {

    private static final String SAMPLER = "{\"kind\": \"aion\", \"substreamMs\": 500, \"error\": 0.05, "
            + "\"confidence\": 0.95, \"history\": 50, \"seed\": 42}";

    private static String config(String extra, String sampler) {
        return "{\"builder\": \"io.klink.workloads.nyt.NytJob\", \"bootstrap\": \"localhost:9092\", \"runId\": \"r1\","
                + " \"metricsTopic\": \"r1-metrics\", \"windowMs\": 2000, \"slideMs\": 1000, \"outOfOrdernessMs\": 1000,"
                + " \"markerIntervalMs\": 200, \"watermarkIntervalMs\": 200, \"sourceFetchBytes\": 0, \"sourceReadAhead\": 0,"
                + " \"sampler\": " + sampler + ","
                + " \"recordResults\": false, \"placement\": \"query\"" + extra + ","
                + " \"queries\": [{\"id\": \"q00\", \"topic\": \"r1-q00\", \"windowOffsetMs\": 17}]}";
    }

    @Test
    void readsTheCommonAndTheWorkloadsKeys() throws Exception {
        String json = config("", SAMPLER);
        QueryPipelines.refuseUnknownKeys(QueryPipelines.JSON.readTree(json), Workloads.jobConfigKeys(NytJob.Config.class));
        QueryPipelines.Run run = QueryPipelines.readConfig(json, QueryPipelines.Run.class);
        assertEquals("aion", run.sampler().kind());
        assertEquals(17, run.queries().get(0).windowOffsetMs());
        assertEquals(new NytJob.Config(2000, 1000), QueryPipelines.readConfig(json, NytJob.Config.class));
        assertEquals(null, QueryPipelines.readConfig(config("", "null"), QueryPipelines.Run.class).sampler());
    }

    @Test
    void aMisspeltTopLevelKeyIsNamed() throws Exception {
        String json = config(", \"watermarkIntervallMs\": 100", "null");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QueryPipelines.refuseUnknownKeys(
                QueryPipelines.JSON.readTree(json), Workloads.jobConfigKeys(NytJob.Config.class)));
        assertTrue(e.getMessage().contains("'watermarkIntervallMs'"), e.getMessage());
    }

    @Test
    void aMisspeltNestedKeyIsNamed() throws Exception {
        String json = config("", SAMPLER.replace("substreamMs", "substreamMS"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QueryPipelines.refuseUnknownKeys(
                QueryPipelines.JSON.readTree(json), Workloads.jobConfigKeys(NytJob.Config.class)));
        assertTrue(e.getMessage().contains("sampler key 'substreamMS'"), e.getMessage());
        String query = config("", "null").replace("\"windowOffsetMs\"", "\"offsetMs\"");
        e = assertThrows(IllegalArgumentException.class, () -> QueryPipelines.refuseUnknownKeys(
                QueryPipelines.JSON.readTree(query), Workloads.jobConfigKeys(NytJob.Config.class)));
        assertTrue(e.getMessage().contains("query key 'offsetMs'"), e.getMessage());
    }

    @Test
    void aMissingKeyIsNamed() {
        Exception e = assertThrows(Exception.class, () -> QueryPipelines.readConfig(
                config("", "null").replace("\"slideMs\": 1000,", ""), NytJob.Config.class));
        assertTrue(e.getMessage().contains("slideMs"), e.getMessage());
    }
}
