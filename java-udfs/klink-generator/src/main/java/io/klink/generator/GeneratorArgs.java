package io.klink.generator;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** The command line, parsed and validated. Flags take {@code --flag value} or {@code --flag=value}. */
public final class GeneratorArgs {

    public static final String USAGE = String.join("\n",
            "usage: java -jar klink-generator.jar --bootstrap HOST:PORT --topics T1[,T2...] --rate N --duration D",
            "                                     [options]",
            "       java -jar klink-generator.jar --print-campaigns [--seed N] [--campaigns N] [--ads-per-campaign N]",
            "",
            "Emits Yahoo Streaming Benchmark ad events (JSON, null key) into one Kafka topic per query, on schedule:",
            "event k of every topic has event_time = start + k*1000/rate ms and is sent at event_time + delay.",
            "",
            "  --bootstrap HOST:PORT     Kafka bootstrap servers (required)",
            "  --topics T1,T2,...        one topic per query (required; created by the broker's auto-create)",
            "  --rate N                  events per second per topic (required unless --max-rate)",
            "  --duration D              generation period, e.g. 30s, 2m, 500ms; bare number = seconds (required)",
            "  --seed N                  random seed: same seed and counts -> same ids and events (default 42)",
            "  --delay SPEC              network delay model (default const:0); " + DelayModels.EXPECTED,
            "  --gaps SPEC               inter-event generation gaps per topic, mean 1/rate: const (the exact schedule,",
            "                            default) or gamma:<k> (Gamma(k, 1/(k*rate)) gaps, bursty; gamma:2 at --rate 1000",
            "                            is the thesis' Gamma(2, 0.5 ms))",
            "  --rate-schedule SPEC      the rate over the run (default steady): surge:<k>x@<start>+<length> (k x --rate",
            "                            from start for length, e.g. surge:4x@10s+10s), bursts:<k>x@<period>+<length>",
            "                            (k x --rate in the first length of every period, e.g. bursts:3x@10s+2s) or",
            "                            ramp:<k>x (linear from --rate to k x --rate over --duration); the lag statistics",
            "                            follow the scheduled rate",
            "  --workload NAME           event schema: ysb (default), nyt (DEBS 2015 taxi trips, CSV), lrb (Linear Road",
            "                            position reports, CSV, 30 s x rate cars per topic), kmeans (drifting 2-D clusters,",
            "                            CSV x,y,event_time), exclamation (CSV id,word,event_time: per-record latency), rides (CSV",
            "                            region,driver,passengers,fare,event_time: the AdCom ride aggregation), average (CSV",
            "                            w<key>,<value>,event_time: the Aion paper's average), bigrams (CSV",
            "                            w<key>,<words>,<post>,event_time: synthetic posts, the Aion paper's bigrams)",
            "  --data FILE               nyt: replay this DEBS 2015 CSV (first 500 000 rows, cyclically)",
            "  --regions N               rides: pick-up regions (default 50)",
            "  --key-skew S              rides: Zipf exponent of the regions' shares, 0 = uniform (default 0)",
            "  --payload-bytes N         average: N characters of payload per event, carried into the window state",
            "                            (the Aion paper's 1.5-3.5 KB events; default 0 = none); bigrams: a post's mean",
            "                            size in bytes (log-normal, sigma " + BigramsEventCodec.POST_LENGTH_SIGMA
                    + " of its log; default " + BigramsEventCodec.DEFAULT_MEAN_POST_BYTES + ")",
            "  --vocabulary-size N       bigrams: words the posts are drawn from (default "
                    + BigramsEventCodec.DEFAULT_VOCABULARY_SIZE + ", at most " + BigramsEventCodec.MAX_VOCABULARY_SIZE + ")",
            "  --word-skew S             bigrams: Zipf exponent of the words' frequencies (default "
                    + BigramsEventCodec.DEFAULT_WORD_SKEW + ", 0 = uniform)",
            "  --expressways N           lrb: expressways (1-" + LrbEventCodec.MAX_EXPRESSWAYS + ", default 1)",
            "  --accidents-per-minute X  lrb: accidents started per minute per topic (seeded; default 2)",
            "  --campaigns N             number of campaigns (default 100)",
            "  --ads-per-campaign N      ads per campaign (default 10)",
            "  --stats-file PATH         per-second CSV: second,sent,scheduled,behind_events,max_lag_ms",
            "  --summary-file PATH       summary JSON at the end (default: printed to stdout)",
            "  --progress-after-end D    after the last event, send each topic '#progress,<event time>' records",
            "                            (every 50 ms of event time, delays as events') up to the end + D: with D =",
            "                            the job's watermark bound every window ending by the end fires",
            "  --start-at-ms MS          epoch ms of event 0 (default: now, after the warm-up); the generator waits",
            "                            for it. Give it >= 5 s of room: JVM start, metadata, warm-up (which is",
            "                            shortened to fit)",
            "  --start-at-file FILE      like --start-at-ms, read from FILE once it appears (written by the caller",
            "                            when its job runs; rename it into place): the JVM starts and rehearses",
            "                            meanwhile. Excludes --start-at-ms",
            "  --max-rate                ignore the schedule and delays: send as fast as possible for the duration",
            "  --warmup D                before the start, rehearse the run into the warm-up topics until the JIT has",
            "                            settled, for at most D, then delete them; 0 = off (default 15s)",
            "  --warmup-topic PREFIX     warm-up topics are PREFIX-<pid>-<0|1>-<i> (default klink-generator-warmup)",
            "  --compression C           producer compression: none, lz4, gzip (default lz4)",
            "  --linger-ms N             producer linger.ms (default 5)",
            "  --batch-size N            producer batch.size in bytes (default 262144)",
            "  --pack-bytes N            pack the events a topic gets in one send burst into one record of at most",
            "                            N bytes, newline-separated (default 65536); 0 = one record per event",
            "  --print-campaigns         print {campaign_id: [ad_id, ...]} as JSON and exit",
            "  --delays-file FILE        write delay_ms,events: the delays events were actually sent with",
            "  --sample-delays N         print N delays (ms, one per line) drawn from --delay for topic 0 of --seed and exit",
            "  --sample-gaps N           print N gaps (ns, one per line) drawn from --gaps at --rate for topic 0 and exit",
            "  --help                    this text",
            "",
            "Exit codes: 0 done, 1 runtime failure (e.g. Kafka unreachable), 2 bad command line;",
            "SIGTERM/SIGINT stop the run, flush the producer and write the summary with status \"interrupted\".");

    public static final Set<String> VALUE_FLAGS = Set.of("--bootstrap", "--topics", "--rate", "--duration",
            "--seed", "--delay", "--workload", "--data", "--expressways", "--accidents-per-minute", "--campaigns", "--ads-per-campaign", "--stats-file", "--summary-file",
            "--start-at-ms", "--start-at-file", "--progress-after-end", "--warmup", "--warmup-topic", "--compression", "--linger-ms", "--batch-size", "--pack-bytes", "--sample-delays",
            "--delays-file", "--gaps", "--sample-gaps", "--regions", "--key-skew", "--payload-bytes", "--rate-schedule",
            "--vocabulary-size", "--word-skew");
    /** The event schemas {@link #codec} makes, one per workload of klink-workloads but lrb-segments, which reads
     *  lrb's (the catalog test checks). */
    public static final List<String> WORKLOADS = List.of("ysb", "nyt", "lrb", "kmeans", "exclamation", "rides", "average",
            "bigrams");
    public static final Set<String> SWITCHES = Set.of("--max-rate", "--print-campaigns", "--help");
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
    public static final int MAX_TOPICS = 1024;
    /** Below the producer's max.request.size (1 MiB) with room for the record batch's framing. */
    public static final int MAX_PACK_BYTES = 512 * 1024;

    public String bootstrap;
    public List<String> topics = List.of();
    public long ratePerTopic = -1;
    public long durationMs = -1;
    public long seed = 42;
    public DelayModel delay = new ConstantDelay(0);
    public String workload = "ysb";
    public Path data;
    public int expressways = 1;
    public double accidentsPerMinute = 2;
    public int campaigns = 100;
    public int regions = 50;
    public double keySkew = 0;
    /** null: the workload's default (average: none; bigrams: the paper's mean post size). */
    public Integer payloadBytes;
    public int vocabularySize = BigramsEventCodec.DEFAULT_VOCABULARY_SIZE;
    public double wordSkew = BigramsEventCodec.DEFAULT_WORD_SKEW;
    public int adsPerCampaign = 10;
    public Path statsFile;
    public Path summaryFile;
    public Path delaysFile;
    public Long startAtMs;
    public java.nio.file.Path startAtFile;
    public boolean maxRate;
    public boolean printCampaigns;
    public int sampleDelays;
    public int sampleGaps;
    public String gapsSpec = "const";
    public String rateScheduleSpec = "steady";
    public boolean help;
    public long warmupMs = 15_000;
    /** Event time the progress records cover after the last event, ms; -1 = send none. */
    public long progressAfterEndMs = -1;
    public String warmupTopic = "klink-generator-warmup";
    public String compression = "lz4";
    public int lingerMs = 5;
    public int batchSize = 262_144;
    public int packBytes = 65_536;

    private GeneratorArgs() {
    }

    public static GeneratorArgs parse(String... argv) throws UsageException {
        GeneratorArgs a = new GeneratorArgs();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < argv.length; i++) {
            String arg = argv[i];
            String flag = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                flag = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (SWITCHES.contains(flag)) {
                if (value != null) {
                    throw new UsageException(flag + " takes no value");
                }
            } else if (VALUE_FLAGS.contains(flag)) {
                if (value == null) {
                    if (i + 1 >= argv.length) {
                        throw new UsageException(flag + " needs a value");
                    }
                    value = argv[++i];
                }
            } else {
                throw new UsageException(arg.startsWith("-") ? "unknown option " + flag
                        : "unexpected argument '" + arg + "'");
            }
            if (!seen.add(flag)) {
                throw new UsageException(flag + " given more than once");
            }
            a.set(flag, value);
        }
        if (a.maxRate && !a.rateScheduleSpec.trim().equals("steady")) {
            throw new UsageException("--rate-schedule " + a.rateScheduleSpec + " needs a schedule; --max-rate has none");
        }
        if (a.sampleGaps > 0 || !a.maxRate && a.ratePerTopic > 0) {
            if (a.ratePerTopic < 0) {
                throw new UsageException("--sample-gaps needs --rate");
            }
            try {
                a.baseGaps(); // validated now, used later
            } catch (IllegalArgumentException e) {
                throw new UsageException("--gaps: " + e.getMessage());
            }
            a.checkRateSchedule();
        }
        if (a.help || a.printCampaigns || a.sampleDelays > 0 || a.sampleGaps > 0) {
            return a;
        }
        if (a.bootstrap == null || a.bootstrap.isBlank()) {
            throw new UsageException("--bootstrap is required");
        }
        if (a.topics.isEmpty()) {
            throw new UsageException("--topics is required");
        }
        if (a.durationMs < 0) {
            throw new UsageException("--duration is required");
        }
        if (a.ratePerTopic < 0 && !a.maxRate) {
            throw new UsageException("--rate is required (or --max-rate)");
        }
        if (a.startAtMs != null && a.startAtFile != null) {
            throw new UsageException("--start-at-ms and --start-at-file exclude each other: give one");
        }
        for (String t : a.topics) {
            if (t.startsWith(a.warmupTopic + "-")) {
                throw new UsageException("--topics: " + t + " could be a warm-up topic (--warmup-topic "
                        + a.warmupTopic + ")");
            }
        }
        return a;
    }

    private void set(String flag, String v) throws UsageException {
        switch (flag) {
            case "--bootstrap" -> bootstrap = v.trim();
            case "--topics" -> topics = parseTopics(v);
            case "--rate" -> {
                ratePerTopic = parseLong(flag, v);
                if (ratePerTopic <= 0 || ratePerTopic > Schedule.MAX_RATE) {
                    throw new UsageException("--rate must be between 1 and " + Schedule.MAX_RATE
                            + " events/s per topic, got " + v);
                }
            }
            case "--duration" -> {
                try {
                    durationMs = Durations.parseMillis(v, "s");
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--duration: " + e.getMessage());
                }
                if (durationMs <= 0) {
                    throw new UsageException("--duration must be > 0, got " + v);
                }
            }
            case "--seed" -> seed = parseLong(flag, v);
            case "--delay" -> {
                try {
                    delay = DelayModels.parse(v);
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--delay: " + e.getMessage());
                }
            }
            case "--workload" -> {
                if (!WORKLOADS.contains(v)) {
                    throw new UsageException("--workload must be one of " + WORKLOADS + ", got " + v);
                }
                workload = v;
            }
            case "--data" -> data = Path.of(v);
            case "--campaigns" -> campaigns = parsePositiveInt(flag, v);
            case "--regions" -> regions = parsePositiveInt(flag, v);
            case "--payload-bytes" -> {
                long n = parseLong(flag, v);
                if (n < 0 || n > AverageEventCodec.MAX_PAYLOAD_BYTES) {
                    throw new UsageException("--payload-bytes must be in [0, " + AverageEventCodec.MAX_PAYLOAD_BYTES
                            + "], got " + v);
                }
                payloadBytes = (int) n;
            }
            case "--key-skew" -> keySkew = parseSkew(flag, v);
            case "--word-skew" -> wordSkew = parseSkew(flag, v);
            case "--vocabulary-size" -> {
                vocabularySize = parsePositiveInt(flag, v);
                if (vocabularySize > BigramsEventCodec.MAX_VOCABULARY_SIZE) {
                    throw new UsageException(flag + " must be at most " + BigramsEventCodec.MAX_VOCABULARY_SIZE
                            + ", got " + v);
                }
            }
            case "--expressways" -> {
                expressways = parsePositiveInt(flag, v);
                if (expressways > LrbEventCodec.MAX_EXPRESSWAYS) {
                    throw new UsageException("--expressways must be at most " + LrbEventCodec.MAX_EXPRESSWAYS + ", got " + v);
                }
            }
            case "--accidents-per-minute" -> {
                try {
                    accidentsPerMinute = Double.parseDouble(v);
                } catch (NumberFormatException e) {
                    accidentsPerMinute = -1;
                }
                if (!(accidentsPerMinute >= 0) || Double.isInfinite(accidentsPerMinute)) {
                    throw new UsageException("--accidents-per-minute must be a number >= 0, got " + v);
                }
            }
            case "--sample-delays" -> sampleDelays = parsePositiveInt(flag, v);
            case "--sample-gaps" -> sampleGaps = parsePositiveInt(flag, v);
            case "--gaps" -> gapsSpec = v;
            case "--rate-schedule" -> rateScheduleSpec = v;
            case "--ads-per-campaign" -> adsPerCampaign = parsePositiveInt(flag, v);
            case "--stats-file" -> statsFile = Path.of(v);
            case "--summary-file" -> summaryFile = Path.of(v);
            case "--delays-file" -> delaysFile = Path.of(v);
            case "--start-at-ms" -> startAtMs = parseLong(flag, v);
            case "--start-at-file" -> {
                if (v.isBlank()) {
                    throw new UsageException("--start-at-file needs a file path");
                }
                startAtFile = java.nio.file.Path.of(v);
            }
            case "--progress-after-end" -> {
                try {
                    progressAfterEndMs = Durations.parseMillis(v, "s");
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--progress-after-end: " + e.getMessage());
                }
                if (progressAfterEndMs < 0) {
                    throw new UsageException("--progress-after-end must not be negative, got " + v);
                }
            }
            case "--warmup" -> {
                try {
                    warmupMs = Durations.parseMillis(v, "s");
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--warmup: " + e.getMessage());
                }
            }
            case "--warmup-topic" -> {
                if (!TOPIC.matcher(v + "-4194304-1-1023").matches()) {
                    throw new UsageException("--warmup-topic: '" + v + "' is not a Kafka topic name");
                }
                warmupTopic = v;
            }
            case "--compression" -> {
                if (!Set.of("none", "lz4", "gzip").contains(v)) {
                    throw new UsageException("--compression must be none, lz4 or gzip, got " + v);
                }
                compression = v;
            }
            case "--linger-ms" -> {
                lingerMs = (int) parseLong(flag, v);
                if (lingerMs < 0) {
                    throw new UsageException("--linger-ms must be >= 0, got " + v);
                }
            }
            case "--batch-size" -> batchSize = parsePositiveInt(flag, v);
            case "--pack-bytes" -> {
                long n = parseLong(flag, v);
                if (n < 0 || n > MAX_PACK_BYTES) {
                    throw new UsageException("--pack-bytes must be 0 (no packing) to " + MAX_PACK_BYTES + ", got " + v);
                }
                packBytes = (int) n;
            }
            case "--max-rate" -> maxRate = true;
            case "--print-campaigns" -> printCampaigns = true;
            case "--help" -> help = true;
            default -> throw new UsageException("unknown option " + flag);
        }
        if ((long) campaigns * adsPerCampaign > YsbCatalog.MAX_ADS) {
            throw new UsageException("--campaigns x --ads-per-campaign must be at most " + YsbCatalog.MAX_ADS);
        }
    }

    /** The inter-event gap model at this rate (needs --rate), its events placed by --rate-schedule. */
    public Gaps gaps() {
        return rateSchedule().warp(baseGaps());
    }

    private Gaps baseGaps() {
        return Gaps.parse(gapsSpec, new Schedule(ratePerTopic));
    }

    /** --rate-schedule over --duration (a steady one needs no duration). */
    public RateSchedule rateSchedule() {
        return rateScheduleSpec.trim().equals("steady") ? RateSchedule.STEADY
                : RateSchedule.parse(rateScheduleSpec, durationMs);
    }

    private void checkRateSchedule() throws UsageException {
        if (durationMs < 0 && !rateScheduleSpec.trim().equals("steady")) {
            throw new UsageException("--rate-schedule " + rateScheduleSpec + " needs --duration");
        }
        RateSchedule rates;
        try {
            rates = rateSchedule();
        } catch (IllegalArgumentException e) {
            throw new UsageException("--rate-schedule: " + e.getMessage());
        }
        if (ratePerTopic * rates.peakMultiplier() > Schedule.MAX_RATE) {
            throw new UsageException("--rate-schedule " + rates.spec() + " takes --rate " + ratePerTopic + " above "
                    + Schedule.MAX_RATE + " events/s per topic");
        }
    }

    private static List<String> parseTopics(String v) throws UsageException {
        Set<String> out = new LinkedHashSet<>();
        for (String t : v.split(",", -1)) {
            String name = t.trim();
            if (!TOPIC.matcher(name).matches()) {
                throw new UsageException("--topics: '" + name + "' is not a Kafka topic name ([a-zA-Z0-9._-]{1,249})");
            }
            if (!out.add(name)) {
                throw new UsageException("--topics: '" + name + "' listed twice");
            }
        }
        if (out.size() > MAX_TOPICS) {
            throw new UsageException("--topics: at most " + MAX_TOPICS + " topics");
        }
        return List.copyOf(new ArrayList<>(out));
    }

    private static long parseLong(String flag, String v) throws UsageException {
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(flag + " must be an integer, got '" + v + "'");
        }
    }

    /** A Zipf exponent in [0, 10]. */
    private static double parseSkew(String flag, String v) throws UsageException {
        double skew;
        try {
            skew = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            skew = -1;
        }
        if (!(skew >= 0) || skew > 10) {
            throw new UsageException(flag + " must be a number in [0, 10], got " + v);
        }
        return skew;
    }

    private static int parsePositiveInt(String flag, String v) throws UsageException {
        long n = parseLong(flag, v);
        if (n <= 0 || n > Integer.MAX_VALUE) {
            throw new UsageException(flag + " must be a positive integer, got " + v);
        }
        return (int) n;
    }

    private BigramsEventCodec bigrams() throws UsageException {
        if (payloadBytes != null && payloadBytes == 0) {
            throw new UsageException("--payload-bytes: bigrams posts need a mean size of at least 1 byte");
        }
        return new BigramsEventCodec(payloadBytes == null ? BigramsEventCodec.DEFAULT_MEAN_POST_BYTES : payloadBytes,
                vocabularySize, wordSkew);
    }

    /** The events of --workload (YSB's catalog comes from --seed, --campaigns, --ads-per-campaign). */
    public EventCodec codec() throws java.io.IOException, UsageException {
        if (data != null && !workload.equals("nyt")) {
            throw new UsageException("--data replays DEBS 2015 trips: it needs --workload nyt");
        }
        return switch (workload) {
            case "nyt" -> data == null ? new NytEventCodec() : new NytReplayCodec(data);
            case "kmeans" -> new KmeansEventCodec();
            case "exclamation" -> new ExclamationEventCodec();
            case "rides" -> new RidesEventCodec(regions, keySkew);
            case "average" -> new AverageEventCodec(payloadBytes == null ? 0 : payloadBytes);
            case "bigrams" -> bigrams();
            case "lrb" -> new LrbEventCodec(seed, ratePerTopic, expressways, accidentsPerMinute);
            default -> new YsbEventCodec(YsbCatalog.create(seed, campaigns, adsPerCampaign));
        };
    }
}
