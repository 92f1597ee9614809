package io.klink.workloads.rides;

import io.klink.metrics.Envelope;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The combiner before the shuffle (seed adcom-edbt21.txt §3, Fig. 3): pre-aggregates each region's trips per
 * window in a {@link CombinerBuffer} and emits the partials every λ ms or every {@code maxRecords} trips,
 * whichever comes first. Emissions are aligned to multiples of λ on the wall clock, so all instances emit in
 * step (§3.2: one controller for all instances keeps their emissions in the same order).
 *
 * <p>With {@code adaptive}, λ comes from the controller: subtask 0 runs the {@link BufferMonitor} (REST →
 * {@link PiController} → klinkctl's control channel) and every instance's {@link IntervalFollower} waits there
 * for each new λ, which the instance takes at its switch instant ({@link EmissionClock}). Without it λ stays at
 * its initial value (the fixed local-global baseline), and subtask 0 only records the buffer utilisation.
 * Watermarks and markers are held with the data (see {@link CombinerBuffer}).
 */
public final class AdaptiveCombiner extends AbstractStreamOperator<Envelope>
        implements OneInputStreamOperator<Envelope, Envelope> {

    /** How often an instance checks its deadline and the controller's latest λ. */
    public static final long TICK_MS = 20;

    /** The combiner's settings (the job config's {@code combiner}; see RidesJob.Config). */
    public record Settings(RideAggregate aggregate, long windowMs, long offsetMs, long initialIntervalMs,
                           long maxRecords, boolean adaptive, double bandLow, double bandHigh, double kp, double ki,
                           long minIntervalMs, long maxIntervalMs, long periodMs, CombinerChannel.Address control,
                           String queryId)
            implements Serializable {}

    private final Settings settings;
    private transient CombinerBuffer buffer;
    private transient EmissionClock clock;
    private transient IntervalFollower follower;  // null: a fixed λ
    private transient List<Thread> threads;  // the follower and, in subtask 0, the controller: interrupted at close

    public AdaptiveCombiner(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void open() throws Exception {
        super.open();
        buffer = new CombinerBuffer(settings.aggregate(), settings.windowMs(), settings.offsetMs());
        long now = getProcessingTimeService().getCurrentProcessingTime();
        clock = new EmissionClock(settings.initialIntervalMs(), now);
        threads = new ArrayList<>();
        getProcessingTimeService().registerTimer(now + TICK_MS, this::onTick);
        if (settings.adaptive()) {
            follower = new IntervalFollower(channel());
            startDaemon(follower, "adcom-interval");
        }
        if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0) {
            startMonitor();
        }
    }

    private CombinerChannel channel() {
        return new CombinerChannel(settings.control(), settings.queryId());
    }

    private void startDaemon(Runnable task, String role) {
        Thread thread = new Thread(task, settings.queryId() + "-" + role + "-"
                + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
        thread.setDaemon(true);
        thread.start();
        threads.add(thread);
    }

    private void startMonitor() {
        Environment env = getContainingTask().getEnvironment();
        Configuration conf = env.getTaskManagerInfo().getConfiguration();
        String rest = "http://" + conf.get(RestOptions.ADDRESS) + ":" + conf.get(RestOptions.PORT);
        PiController controller = settings.adaptive() ? new PiController(new PiController.Params(settings.bandLow(),
                settings.bandHigh(), settings.kp(), settings.ki(), settings.minIntervalMs(), settings.maxIntervalMs()),
                settings.initialIntervalMs()) : null;
        BufferMonitor monitor = new BufferMonitor(rest, env.getJobID().toHexString(), env.getJobVertexId().toHexString(),
                getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks(), settings.periodMs(), controller,
                channel(), settings.queryId());
        startDaemon(monitor, "adcom-controller");
    }

    private void onTick(long timestamp) throws Exception {
        if (follower != null) {
            clock.take(follower.latest(), timestamp);
        }
        if (clock.due(timestamp)) {
            emit();
            clock.emitted(timestamp);
        }
        getProcessingTimeService().registerTimer(timestamp + TICK_MS, this::onTick);
    }

    @Override
    public void processElement(StreamRecord<Envelope> element) {
        Envelope e = element.getValue();
        switch (e.kind) {
            case Envelope.DATA -> {
                buffer.add(e);
                if (settings.maxRecords() > 0 && buffer.records() >= settings.maxRecords()) {
                    emit();
                }
            }
            case Envelope.PROGRESS -> { }  // its time already moved the source's watermark; the window drops it
            default -> buffer.hold(e);
        }
    }

    @Override
    public void processWatermark(Watermark mark) {
        buffer.holdWatermark(mark.getTimestamp());  // emitted after the partials it covers
    }

    private void emit() {
        for (Envelope out : buffer.drain()) {
            output.collect(new StreamRecord<>(out, out.timestamp));
        }
        Long watermark = buffer.takeWatermark();
        if (watermark != null) {
            output.emitWatermark(new Watermark(watermark));
        }
    }

    @Override
    public void finish() throws Exception {
        emit();
        super.finish();
    }

    @Override
    public void close() throws Exception {
        if (threads != null) {
            threads.forEach(Thread::interrupt);
        }
        super.close();
    }
}
