package io.klink.workloads;

import io.klink.workloads.common.QueryPipelines;
import io.klink.workloads.kmeans.KmeansJob;
import io.klink.workloads.late.AverageJob;
import io.klink.workloads.late.BigramsJob;
import io.klink.workloads.late.LateWindowJob;
import io.klink.workloads.late.LrbSegmentsJob;
import io.klink.workloads.lrb.LrbJob;
import io.klink.workloads.nyt.NytJob;
import io.klink.workloads.rides.RidesJob;
import io.klink.workloads.tail.ExclamationJob;
import io.klink.workloads.tail.RecordPipeline;
import io.klink.workloads.ysb.YsbJob;
import io.klink.workloads.ysb.YsbRecordsJob;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Every workload: its name ({@code klinkctl bench <workload>}, and klink-generator's {@code --workload} unless it
 * reads another workload's events: lrb-segments reads lrb's position reports), the class whose
 * static {@code build(env, configJson)} adds its queries, and the record of its own job-config keys. The one
 * declaration the build's catalog (klink-catalog) and klinkctl read.
 */
public final class Workloads {

    public record Workload(String name, Class<?> builder, Class<? extends Record> config) {

        /** Every key its job config may have: the builder's name, the common keys and its own. */
        public Set<String> jobConfigKeys() {
            return Workloads.jobConfigKeys(config);
        }
    }

    public static final List<Workload> ALL = List.of(
            new Workload("ysb", YsbJob.class, YsbJob.Config.class),
            new Workload("nyt", NytJob.class, NytJob.Config.class),
            new Workload("lrb", LrbJob.class, LrbJob.Config.class),
            new Workload("kmeans", KmeansJob.class, KmeansJob.Config.class),
            new Workload("exclamation", ExclamationJob.class, RecordPipeline.Config.class),
            new Workload("ysb-records", YsbRecordsJob.class, RecordPipeline.Config.class),
            new Workload("rides", RidesJob.class, RidesJob.Config.class),
            new Workload("average", AverageJob.class, LateWindowJob.Config.class),
            new Workload("bigrams", BigramsJob.class, LateWindowJob.Config.class),
            new Workload("lrb-segments", LrbSegmentsJob.class, LateWindowJob.Config.class));

    public static final List<String> NAMES = ALL.stream().map(Workload::name).toList();

    /** The key jobs/java_pipelines.py reads: the builder class to call. */
    public static final String BUILDER_KEY = "builder";

    private Workloads() {}

    /** Every top-level key of a job config whose workload reads {@code workloadConfig}. */
    public static Set<String> jobConfigKeys(Class<? extends Record> workloadConfig) {
        Set<String> keys = new LinkedHashSet<>(List.of(BUILDER_KEY));
        keys.addAll(keys(QueryPipelines.Run.class));
        keys.addAll(keys(workloadConfig));
        return keys;
    }

    /** A record's component names: the JSON keys Jackson reads it from. */
    public static Set<String> keys(Class<? extends Record> record) {
        Set<String> keys = new LinkedHashSet<>();
        Arrays.stream(record.getRecordComponents()).forEach(c -> keys.add(c.getName()));
        return keys;
    }
}
