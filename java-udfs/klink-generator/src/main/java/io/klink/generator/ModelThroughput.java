package io.klink.generator;

import java.util.List;

/**
 * The generator's own speed with a given delay and gap model, Kafka left out: the real generation loop
 * (draw fields, sample delay and gap, send queue, render JSON) into a sink that only counts bytes.
 * Used by benchmarks/generator_models.py.
 *
 * <pre>java -cp klink-generator.jar io.klink.generator.ModelThroughput DELAY GAPS TOPICS SECONDS TOTAL_RATE</pre>
 * TOTAL_RATE 0 = flat out (a schedule too fast to keep). Prints {@code events_per_s behind_fraction}.
 */
public final class ModelThroughput {

    /** Per topic; far above what one core renders, so the loop is always behind and never waits. */
    private static final long UNREACHABLE_RATE = 50_000_000L;
    private static final long WARM_UP_MS = 4000;

    private ModelThroughput() {
    }

    public static void main(String[] args) {
        DelayModel delay = DelayModels.parse(args[0]);
        int topics = Integer.parseInt(args[2]);
        long millis = Long.parseLong(args[3]) * 1000;
        long totalRate = Long.parseLong(args[4]);
        run(delay, args[1], topics, WARM_UP_MS, UNREACHABLE_RATE); // JIT: the real generator rehearses too
        Generator.Result result = run(delay, args[1], topics, millis, totalRate == 0 ? UNREACHABLE_RATE : totalRate / topics);
        System.out.printf("%.0f %.6f%n", result.achievedRate(), result.behindFraction());
    }

    private static Generator.Result run(DelayModel delay, String gaps, int topics, long millis, long ratePerTopic) {
        List<String> names = java.util.stream.IntStream.range(0, topics).mapToObj(i -> "t" + i).toList();
        long[] bytes = new long[1]; // read by nothing, but keeps the JIT from dropping the rendering
        EventSink counting = (topic, value) -> bytes[0] += value.length;
        Generator.Config config = new Generator.Config(names, ratePerTopic, millis, delay,
                Gaps.parse(gaps, new Schedule(ratePerTopic)), false);
        Generator generator = new Generator(config, 42, YsbCatalog.create(42, 100, 10), Clock.SYSTEM, counting,
                new LagStats(topics, null));
        Thread stopper = new Thread(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException ignored) {
                return;
            }
            generator.abandon(); // unsent events are not counted: with an unreachable rate they are countless
        });
        stopper.setDaemon(true);
        long t0 = System.nanoTime();
        stopper.start();
        return generator.run(t0, System.currentTimeMillis());
    }
}
