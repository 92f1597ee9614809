package io.klink.generator;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Entry point of {@code klink-generator.jar}; see {@link GeneratorArgs#USAGE}. */
public final class Main {

    private Main() {
    }

    public static void main(String[] argv) {
        GeneratorArgs args;
        EventCodec codec;
        try {
            args = GeneratorArgs.parse(argv);
            codec = args.help || args.printCampaigns ? null : args.codec();
        } catch (IOException e) {
            System.err.println("klink-generator: error: cannot read --data: " + e);
            System.exit(2);
            return;
        } catch (UsageException e) {
            System.err.println("klink-generator: error: " + e.getMessage() + " (see --help)");
            System.exit(2);
            return;
        }
        if (args.help) {
            System.out.println(GeneratorArgs.USAGE);
            return;
        }
        if (args.printCampaigns) {
            System.out.println(YsbCatalog.create(args.seed, args.campaigns, args.adsPerCampaign).campaignsJson());
            return;
        }
        if (args.sampleGaps > 0) {
            java.util.SplittableRandom rng = SeedStreams.of(args.seed, 1).gaps[0];
            Gaps gaps = args.gaps();
            StringBuilder out = new StringBuilder();
            long offset = 0;
            for (int k = 0; k < args.sampleGaps; k++) {
                long next = gaps.nextOffsetNanos(k, offset, rng);
                out.append(next - offset).append('\n');
                offset = next;
            }
            System.out.print(out);
            return;
        }
        if (args.sampleDelays > 0) {
            java.util.SplittableRandom rng = SeedStreams.of(args.seed, 1).delays[0];
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < args.sampleDelays; i++) {
                out.append(args.delay.sampleDelayMs(rng)).append('\n');
            }
            System.out.print(out);
            return;
        }
        int code;
        try {
            code = run(args, codec);
        } catch (RuntimeException | IOException e) {
            System.err.println("klink-generator: error: " + e);
            code = 1;
        }
        if (code != 0) {
            System.exit(code);
        }
    }

    private static int run(GeneratorArgs a, EventCodec codec) throws IOException {
        Writer csv = a.statsFile == null ? null : open(a.statsFile);
        LagStats stats = new LagStats(a.topics.size(), csv);
        Generator.Config config = a.maxRate
                ? new Generator.Config(a.topics, a.ratePerTopic, a.durationMs, a.delay, true)
                : new Generator.Config(a.topics, a.ratePerTopic, a.durationMs, a.delay, a.gaps(), false);

        KafkaSink sink = new KafkaSink(a.bootstrap, a.topics, a.compression, a.lingerMs, a.batchSize);
        EventSink packing = new PackingSink(sink, a.topics.size(), a.packBytes);
        Generator generator = new Generator(config, a.seed, codec, Clock.SYSTEM, packing, stats);
        DelayHistogram sentDelays = new DelayHistogram();
        generator.recordSentDelays(sentDelays);
        if (a.progressAfterEndMs >= 0 && !a.maxRate) {
            generator.sendProgressAfterEnd(a.progressAfterEndMs);
        }

        // SIGTERM/SIGINT: stop the loop, let this thread flush and write the summary, then exit.
        CountDownLatch done = new CountDownLatch(1);
        Thread mainThread = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            generator.requestStop();
            try {
                if (!done.await(20, TimeUnit.SECONDS)) {
                    System.err.println("klink-generator: gave up waiting for " + mainThread.getName());
                }
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }, "klink-generator-shutdown"));

        try {
            try {
                sink.connect(a.compression, warmUpTopics(a));
            } catch (org.apache.kafka.common.KafkaException e) {
                if (generator.stopRequested()) {
                    return finishWithoutRun(a, generator, stats, sink, csv, done);
                }
                System.err.println("klink-generator: error: cannot get metadata for " + a.topics + " from "
                        + a.bootstrap + " within " + KafkaSink.MAX_BLOCK_MS / 1000
                        + " s (broker down, or topic auto-creation disabled?): " + e);
                sink.close();
                return 1;
            }

            StartSignal signal = StartSignal.of(a);
            warmUp(a, config, codec, sink, packing, signal);
            Long awaited = signal.await(generator::stopRequested);
            if (awaited == null) { // stopped while waiting for --start-at-file
                return finishWithoutRun(a, generator, stats, sink, csv, done);
            }

            // Align event 0 with the wall clock: t0 is the nanoTime at which currentTimeMillis == startMs.
            long startMs = awaited;
            long behindMs = System.currentTimeMillis() - startMs;
            if (behindMs > 1000) {
                System.err.println("klink-generator: warning: --start-at-ms is " + behindMs
                        + " ms in the past; the run starts behind schedule");
            }
            while (!generator.stopRequested() && System.currentTimeMillis() < startMs) {
                long wait = startMs - System.currentTimeMillis();
                Thread.sleep(Math.max(0, Math.min(wait - 1, 100)));
            }
            long t0 = System.nanoTime() - Math.max(0, System.currentTimeMillis() - startMs) * 1_000_000L;

            double cpuBefore = processCpuSeconds();
            Generator.Result result = generator.run(t0, startMs);
            double runCpuS = processCpuSeconds() - cpuBefore;
            long flushStart = System.nanoTime();
            sink.flush();
            double flushS = (System.nanoTime() - flushStart) / 1e9;
            java.util.Map<String, Double> producerMetrics = sink.metrics();
            sink.close();
            if (csv != null) {
                csv.close();
            }
            if (a.delaysFile != null) {
                try (Writer out = open(a.delaysFile)) {
                    sentDelays.writeCsv(out);
                }
            }
            String summary = Summary.render(a, result, startMs, flushS, runCpuS, producerMetrics, sink.errors(),
                    sink.firstError());
            writeSummary(a, summary);
            System.err.printf("klink-generator: %s: sent %d of %d scheduled events in %.1f s (%.0f ev/s),"
                            + " behind %d (%.4f%%)%s%n",
                    result.interrupted() ? "interrupted" : "completed", result.eventsSent(),
                    result.eventsScheduled(), result.elapsedNanos() / 1e9, result.achievedRate(),
                    result.behindEvents(), 100 * result.behindFraction(),
                    result.fellBehind() ? " -- FELL BEHIND (more than 1 % of events late)" : "");
            return sink.errors() > 0 ? 1 : 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } finally {
            done.countDown();
        }
    }

    /** The warm-up ends this long before a known start: flushing and deleting its topics. */
    static final long FLUSH_ROOM_MS = 1500;

    private static double processCpuSeconds() {
        return ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(Double.NaN);
    }

    /**
     * Before the schedule starts, unless --warmup 0: rehearse the run (same topic count, rate, delay,
     * mode) into the warm-up topics {@code <warmup-topic>-<pid>-<set>-<i>} until the JIT has settled (at most the
     * --warmup time), flush, and delete those topics. The run's topics never see warm-up events.
     */
    private static void warmUp(GeneratorArgs a, Generator.Config config, EventCodec codec, KafkaSink sink,
                               EventSink packing, StartSignal signal) {
        long warmupMs = a.warmupMs;
        if (a.startAtMs != null) { // never let the warm-up delay a fixed start: keep the room for flush + delete
            long room = a.startAtMs - System.currentTimeMillis() - FLUSH_ROOM_MS;
            if (room < warmupMs) {
                warmupMs = Math.max(0, room);
                System.err.println("klink-generator: warm-up limited to " + warmupMs
                        + " ms to keep --start-at-ms (start later to allow a full warm-up)");
            }
        }
        if (warmupMs <= 0) {
            return;
        }
        long t = System.nanoTime();
        List<String> topics = warmUpTopics(a);
        int q = a.topics.size();
        // a start read from the file later cuts the rehearsal short the same way
        WarmUp.Outcome w = WarmUp.run(config, codec, warmupMs, packing,
                set -> sink.routeTo(topics.subList(set * q, (set + 1) * q)),
                () -> signal.known().orElse(Long.MAX_VALUE - FLUSH_ROOM_MS) - FLUSH_ROOM_MS);
        sink.flush();
        sink.routeToRunTopics();
        String error = sink.deleteTopics(topics);
        System.err.printf("klink-generator: warm-up: %d events into %s-%d-* in %.1f s, JIT %s%s%n", w.events(),
                a.warmupTopic, ProcessHandle.current().pid(), (System.nanoTime() - t) / 1e9,
                w.settled() ? "settled" : "still compiling (" + w.lastWindowCompileMs() + " ms in the last "
                        + WarmUp.WINDOW_MS + " ms)",
                error == null ? ", topics deleted" : " (not deleted: " + error + ")");
    }

    /**
     * Two sets of {@code <prefix>-<pid>-<set>-<i>} (the warm-up alternates between them): unique per
     * process, so concurrent generators never share them.
     */
    private static List<String> warmUpTopics(GeneratorArgs a) {
        List<String> topics = new ArrayList<>();
        if (a.warmupMs > 0) {
            long pid = ProcessHandle.current().pid();
            for (int set = 0; set < 2; set++) {
                for (int i = 0; i < a.topics.size(); i++) {
                    topics.add(a.warmupTopic + "-" + pid + "-" + set + "-" + i);
                }
            }
        }
        return topics;
    }

    private static int finishWithoutRun(GeneratorArgs a, Generator generator, LagStats stats, KafkaSink sink,
                                        Writer csv, CountDownLatch done) throws IOException {
        Generator.Result result = generator.run(System.nanoTime(), System.currentTimeMillis());
        sink.close();
        if (csv != null) {
            csv.close();
        }
        writeSummary(a, Summary.render(a, result, System.currentTimeMillis(), 0, Double.NaN, java.util.Map.of(), sink.errors(),
                sink.firstError()));
        return 0;
    }

    private static Writer open(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        return new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8));
    }

    /** Written to a temp file and renamed, so readers never see half a summary. */
    private static void writeSummary(GeneratorArgs a, String summary) throws IOException {
        if (a.summaryFile == null) {
            System.out.print(summary);
            System.out.flush();
            return;
        }
        Path target = a.summaryFile.toAbsolutePath();
        Files.createDirectories(target.getParent());
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.writeString(tmp, summary, StandardCharsets.UTF_8);
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
