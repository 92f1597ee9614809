package io.klink.workloads.late;

import io.klink.metrics.Envelope;
import io.klink.scheduler.LiveHeap;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The AION window operator (§3, §4) on unmodified Flink: DATA events ({@code key}, {@code fields[0]} the value,
 * the payload) go into {@link AionWindows}; on each watermark and every {@code reExecuteMs} of processing time the
 * expired windows with new events are (re-)executed and every key's result emitted as a RESULT (fields: the
 * window function's, execution, late events accepted). Events dropped after cleanup are forwarded as they are (the
 * downstream {@link ResultFirings} counts them), a RESULT of key {@code #aion} carries the counters, and one of
 * key {@code #staleness} per window cleaned up its executions and staleness ({@link LateResults#staleness}).
 *
 * <p>Not checkpointed (like the other instrumented windows: benchmark runs do not restore). Its p-buckets live on
 * its TaskManager's disk, in {@code <io.tmp.dir>/klink-p-buckets/<runId>/<query>-<subtask>} ({@link
 * PBucketDirectory}); open() fails the job if that disk has less than {@link PBucketDirectory#MIN_FREE_BYTES}
 * usable, close() deletes them. Their bytes are the gauge {@value #P_BUCKET_BYTES} of the operator's metric group.
 */
public class AionWindowOperator extends AbstractStreamOperator<Envelope>
        implements OneInputStreamOperator<Envelope, Envelope> {

    public static final String COUNTERS_KEY = "#aion";
    /** The gauge of the instance's p-bucket bytes on disk (klinkctl's late-state.csv reads it over REST). */
    public static final String P_BUCKET_BYTES = "pBucketBytes";

    private final AionWindows.Settings settings;
    private final String runId;
    private final String name;
    private final long reExecuteMs;
    private transient AionWindows windows;
    private transient Path pBucketDir;
    private transient AionWindows.Counters reported;

    public AionWindowOperator(AionWindows.Settings settings, String runId, String name, long reExecuteMs) {
        PBucketDirectory.checkRunId(runId);
        this.settings = settings;
        this.runId = runId;
        this.name = name;
        this.reExecuteMs = reExecuteMs;
    }

    @Override
    public void open() throws Exception {
        super.open();
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        String id = name + "-" + subtask;
        String[] tmpDirs = getContainingTask().getEnvironment().getTaskManagerInfo().getTmpDirectories();
        pBucketDir = PBucketDirectory.choose(tmpDirs, runId, id, subtask, PBucketDirectory.MIN_FREE_BYTES);
        PBuckets buckets = new PBuckets(pBucketDir);
        getMetricGroup().gauge(P_BUCKET_BYTES, (Gauge<Long>) buckets::bytes);
        windows = new AionWindows(settings, buckets, new IoScheduler("aion-io-" + id, true),
                () -> getProcessingTimeService().getCurrentProcessingTime(), () -> 1.0 - LiveHeap.fraction());
        schedule();
    }

    private void schedule() {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService().registerTimer(now + reExecuteMs, time -> {
            windows.tick();
            emit(windows.reExecute());
            schedule();
        });
    }

    @Override
    public void processElement(StreamRecord<Envelope> element) {
        Envelope e = element.getValue();
        if (e.isData() && !windows.add(new LateEvent(e.key, e.fields[0], e.timestamp, e.payload))) {
            output.collect(element);  // dropped: after its window's cleanup
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        emit(windows.advance(mark.getTimestamp()));
        super.processWatermark(mark);
    }

    private void emit(List<AionWindows.Result> results) {
        for (AionWindows.Result r : results) {
            Envelope out = LateResults.result(r.windowEnd(), r.key(), r.values(), r.events(), r.execution(),
                    r.lateAccepted());
            output.collect(new StreamRecord<>(out, r.windowEnd() - 1));
        }
        for (LateExecutions.Report r : windows.drainReports()) {
            output.collect(new StreamRecord<>(LateResults.staleness(r), r.windowEnd() - 1));
        }
        AionWindows.Counters c = windows.counters();
        if (!c.equals(reported)) {
            reported = c;
            Envelope counters = Envelope.result(COUNTERS_KEY, Math.max(0, windows.watermark()), c.mBucketEvents());
            counters.fields = new double[] {c.lateAccepted(), c.lateDropped(), c.destaged(), c.lateWrites(),
                    c.overflowWrites(), c.staged(), c.reExecutions(), c.mBucketEvents(), c.droppedAfterPurge(),
                    c.prestaged(), c.stagingWaitMs(), c.idleDestaged(), c.scarceDestaged()};
            output.collect(new StreamRecord<>(counters, counters.timestamp));
        }
    }

    @Override
    public void close() throws Exception {
        if (windows != null) {
            windows.close();
            PBucketDirectory.removeRunDirectoryIfEmpty(pBucketDir);
        }
        super.close();
    }
}
