package io.klink.catalog;

import io.klink.agent.AgentOptions;
import io.klink.agent.RunControl;
import io.klink.agent.Enforcement;
import io.klink.generator.BigramsEventCodec;
import io.klink.generator.DelayModels;
import io.klink.generator.Gaps;
import io.klink.generator.GeneratorArgs;
import io.klink.generator.LrbEventCodec;
import io.klink.generator.RateSchedule;
import io.klink.sampler.Samplers;
import io.klink.scheduler.policy.Policies;
import io.klink.scheduler.policy.PolicyConfig;
import io.klink.workloads.Workloads;
import io.klink.workloads.common.QueryPipelines;
import io.klink.workloads.kmeans.KmeansJob;
import io.klink.workloads.late.LateWindowJob;
import io.klink.workloads.rides.RideAggregate;
import io.klink.workloads.rides.RidesJob;
import io.klink.workloads.tail.StageCost;
import io.klink.workloads.tail.Tails;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What klinkctl must agree on with the Java side, read from the Java declarations themselves: policies,
 * samplers, delay and gap models, workloads, the keys of every file klinkctl writes for Java, and the limits
 * klinkctl checks up front. Written to {@code klink-catalog/target/klink-catalog.json} by {@link WriteCatalog}.
 */
public final class Catalog {

    /** Raised when the catalog's layout changes in a way its reader (klinkctl/catalog.py) must follow. */
    public static final int FORMAT = 1;

    private Catalog() {}

    public static Map<String, Object> build() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("format", FORMAT);
        c.put("policies", Policies.ALL.stream().map(p -> entry("name", p.name(), "parameters", p.parameters())).toList());
        c.put("schedulerParameters", Policies.SCHEDULER_PARAMETERS);
        c.put("policyParameterDefaults", PolicyConfig.DEFAULTS);
        c.put("enforcements", Enforcement.NAMES);
        c.put("runControl", entry("keys", sorted(RunControl.KEYS), "parameters", List.copyOf(RunControl.PARAMETERS)));
        c.put("agentOptions", sorted(AgentOptions.KEYS));
        c.put("samplers", Samplers.ALL.stream().map(s -> entry("name", s.name())).toList());
        c.put("delayKinds", DelayModels.KINDS.stream().map(Catalog::delayKind).toList());
        c.put("gapKinds", Gaps.KINDS.stream()
                .map(k -> entry("name", k.name(), "form", k.form(), "example", k.example())).toList());
        c.put("rateSchedules", RateSchedule.KINDS.stream().map(k -> entry("name", k.name(), "form", k.form(),
                "example", k.example(), "canonical", RateSchedule.parse(k.example(), 60_000).spec())).toList());
        c.put("workloads", Workloads.ALL.stream().map(w -> entry("name", w.name(), "builder", w.builder().getName(),
                "jobConfigKeys", List.copyOf(w.jobConfigKeys()))).toList());
        c.put("jobConfig", entry("sampler", keys(QueryPipelines.Sampler.class), "query", keys(QueryPipelines.Query.class)));
        c.put("generator", entry("workloads", GeneratorArgs.WORKLOADS,
                "options", sorted(GeneratorArgs.VALUE_FLAGS), "switches", sorted(GeneratorArgs.SWITCHES),
                "maxPackBytes", GeneratorArgs.MAX_PACK_BYTES, "maxRate", io.klink.generator.Schedule.MAX_RATE,
                "maxExpressways", LrbEventCodec.MAX_EXPRESSWAYS));
        c.put("kmeans", entry("plane", KmeansJob.PLANE));
        c.put("tails", Tails.ALL.stream().map(t -> entry("name", t.name(), "description", t.description())).toList());
        c.put("combiners", RidesJob.COMBINERS.stream().map(n -> entry("name", n)).toList());
        c.put("lateStates", LateWindowJob.LATE_STATES.stream().map(s -> entry("name", s.name(), "backend", s.backend(),
                "backendClass", s.backendClass())).toList());
        c.put("lateTriggers", io.klink.workloads.late.AionWindows.LATE_TRIGGERS.stream().map(n -> entry("name", n))
                .toList());
        c.put("pBuckets", entry("minFreeBytes", io.klink.workloads.late.PBucketDirectory.MIN_FREE_BYTES));
        c.put("destageOrders", io.klink.workloads.late.DestagePolicies.ORDERS.stream().map(n -> entry("name", n))
                .toList());
        c.put("bigrams", entry("meanPostBytes", BigramsEventCodec.DEFAULT_MEAN_POST_BYTES,
                "postLengthSigma", BigramsEventCodec.POST_LENGTH_SIGMA,
                "vocabularySize", BigramsEventCodec.DEFAULT_VOCABULARY_SIZE,
                "maxVocabularySize", BigramsEventCodec.MAX_VOCABULARY_SIZE,
                "wordSkew", BigramsEventCodec.DEFAULT_WORD_SKEW, "maxWordSkew", BigramsEventCodec.MAX_WORD_SKEW));
        c.put("rideAggregates", Arrays.stream(RideAggregate.values()).map(a -> entry("name", a.label)).toList());
        c.put("stageCosts", Arrays.stream(StageCost.values()).map(s -> entry("name", s.name)).toList());
        return c;
    }

    /** A delay model with its parameters and its example's canonical spec (what the generator reports back). */
    private static Map<String, Object> delayKind(DelayModels.Kind k) {
        return entry("name", k.name(), "form", k.form(), "parameters", k.parameters(), "example", k.example(),
                "canonical", DelayModels.parse(k.example()).spec());
    }

    private static List<String> keys(Class<? extends Record> record) {
        return List.copyOf(Workloads.keys(record));
    }

    private static List<String> sorted(Collection<String> names) {
        return names.stream().sorted().toList();
    }

    /** An ordered map of alternating keys and values. */
    private static Map<String, Object> entry(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }
}
