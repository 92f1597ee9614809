package io.klink.workloads.rides;

import io.klink.metrics.Envelope;
import java.io.Serializable;
import java.nio.file.Path;
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
 * {@link PiController} → control file) and every instance polls the control file every {@link #TICK_MS} ms.
 * Without it λ stays at its initial value (the fixed local-global baseline), and subtask 0 only records the
 * buffer utilisation. Watermarks and markers are held with the data (see {@link CombinerBuffer}).
 */
public final class AdaptiveCombiner extends AbstractStreamOperator<Envelope>
        implements OneInputStreamOperator<Envelope, Envelope> {

    /** How often an instance checks its deadline and the control file. */
    public static final long TICK_MS = 20;

    /** The combiner's settings (the job config's {@code combiner}; see RidesJob.Config). */
    public record Settings(RideAggregate aggregate, long windowMs, long offsetMs, long initialIntervalMs,
                           long maxRecords, boolean adaptive, double bandLow, double bandHigh, double kp, double ki,
                           long minIntervalMs, long maxIntervalMs, long periodMs, String runDir, String queryId)
            implements Serializable {}

    private final Settings settings;
    private transient CombinerBuffer buffer;
    private transient CombinerControl control;
    private transient BufferMonitor monitor;
    private transient long intervalMs;
    private transient long nextEmitAt;

    public AdaptiveCombiner(Settings settings) {
        this.settings = settings;
    }

    /** The first multiple of {@code intervalMs} after {@code nowMs} (wall-clock aligned, the same everywhere). */
    static long nextAligned(long nowMs, long intervalMs) {
        return (nowMs / intervalMs + 1) * intervalMs;
    }

    @Override
    public void open() throws Exception {
        super.open();
        buffer = new CombinerBuffer(settings.aggregate(), settings.windowMs(), settings.offsetMs());
        control = new CombinerControl(Path.of(settings.runDir()), settings.queryId());
        intervalMs = settings.initialIntervalMs();
        long now = getProcessingTimeService().getCurrentProcessingTime();
        nextEmitAt = nextAligned(now, intervalMs);
        getProcessingTimeService().registerTimer(now + TICK_MS, this::onTick);
        if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0) {
            startMonitor();
        }
    }

    private void startMonitor() {
        Environment env = getContainingTask().getEnvironment();
        Configuration conf = env.getTaskManagerInfo().getConfiguration();
        String rest = "http://" + conf.get(RestOptions.ADDRESS) + ":" + conf.get(RestOptions.PORT);
        PiController controller = settings.adaptive() ? new PiController(new PiController.Params(settings.bandLow(),
                settings.bandHigh(), settings.kp(), settings.ki(), settings.minIntervalMs(), settings.maxIntervalMs()),
                settings.initialIntervalMs()) : null;
        monitor = new BufferMonitor(rest, env.getJobID().toHexString(), env.getJobVertexId().toHexString(),
                getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks(), settings.periodMs(), controller,
                Path.of(settings.runDir()), settings.queryId());
        Thread thread = new Thread(monitor, settings.queryId() + "-adcom-controller");
        thread.setDaemon(true);
        thread.start();
    }

    private void onTick(long timestamp) throws Exception {
        if (settings.adaptive()) {
            long published = control.poll();
            if (published > 0 && published != intervalMs) {
                intervalMs = published;
                nextEmitAt = Math.min(nextEmitAt, nextAligned(timestamp, intervalMs));
            }
        }
        if (timestamp >= nextEmitAt) {
            emit();
            nextEmitAt = nextAligned(timestamp, intervalMs);
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
        if (monitor != null) {
            monitor.stop();
        }
        super.close();
    }
}
