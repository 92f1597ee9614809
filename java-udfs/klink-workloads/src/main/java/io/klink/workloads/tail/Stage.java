package io.klink.workloads.tail;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Locale;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.util.Collector;

/**
 * One operator of a per-record-latency pipeline: does its {@link RecordWork} (a record it drops goes no further),
 * spends its per-record cost ({@link ServiceTime}), adds its wait to the record's queueing delay, and takes part in latency-based
 * balancing on either side of an exchange. Downstream of a balanced exchange it measures its own latency T
 * (from the upstream hand-over to the end of its work: network, queueing and service) and states its mean every
 * period on the {@link Feedback} channel; upstream of one it runs {@link LatencyBalance} on what its downstream
 * tasks stated and writes each record's route, which {@link Routes} follows.
 */
public final class Stage extends RichFlatMapFunction<TailRecord, TailRecord> {

    /** The balancer's settings; {@code unit}: the share of this task's traffic one adjustment moves. */
    public record Balancing(String bootstrap, String topic, long periodMs, double alpha, double threshold,
                            double unit) implements Serializable {}

    private final ServiceTime service;
    private final RecordWork work;
    private final Balancing balancing;
    private final String reportAs;
    private final String balanceTo;
    private final int downstream;

    private transient Feedback feedback;
    private transient String self;
    private transient long periodStartMs;
    private transient long sumMicros;
    private transient long count;
    private transient long stated;
    private transient LatencyBalance balance;
    private transient long[] lastSeen;
    private transient long sink;
    private transient long serviceMicros;
    private transient Stalls.Schedule stalls;

    /**
     * {@code reportAs}: this operator's name on the channel when the exchange into it is balanced (else null);
     * {@code balanceTo}: the next operator's name when the exchange out of it is balanced (else null), which
     * has {@code downstream} tasks.
     */
    public Stage(ServiceTime service, RecordWork work, Balancing balancing, String reportAs,
                 String balanceTo, int downstream) {
        this.service = service;
        this.work = work;
        this.balancing = balancing;
        this.reportAs = reportAs;
        this.balanceTo = balanceTo;
        this.downstream = downstream;
    }

    @Override
    public void open(OpenContext context) {
        serviceMicros = service.microsIn(this::getRuntimeContext);
        stalls = service.stalls().start(() -> taskSeed(getRuntimeContext()));
        if (balancing != null && (reportAs != null || balanceTo != null)) {
            feedback = Feedback.join(balancing.bootstrap(), balancing.topic());
            int index = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            self = (reportAs != null ? reportAs : "upstream") + "/" + index;
            periodStartMs = System.currentTimeMillis();
        }
        if (balanceTo != null) {
            balance = new LatencyBalance(downstream, balancing.alpha(), balancing.threshold(), balancing.unit());
            lastSeen = new long[downstream];
            Arrays.fill(lastSeen, -1);
        }
    }

    @Override
    public void flatMap(TailRecord r, Collector<TailRecord> out) {
        if (work(r).payload != null) {
            out.collect(r);
        }
    }

    /** Works on {@code r} and returns it; its payload is null when the work dropped it. */
    TailRecord work(TailRecord r) {
        stalls.waitIfDue();
        r.startWork(Feedback.nowMicros());
        sink ^= service.model().spend(serviceMicros);
        r.payload = work.apply(r.payload);
        long now = Feedback.nowMicros();
        if (feedback != null) {
            sumMicros += Math.max(0, now - r.handedOnUs);
            count++;
            if (now / 1000 - periodStartMs >= balancing.periodMs()) {
                endPeriod(now / 1000);
            }
        }
        if (balance != null) {
            r.route = balance.next();
        }
        r.handedOnUs = now;
        return r;
    }

    /** A seed of this task's own (its stalls), the same in every run. */
    static long taskSeed(RuntimeContext context) {
        return context.getTaskInfo().getTaskNameWithSubtasks().hashCode();
    }

    private void endPeriod(long nowMs) {
        if (reportAs != null && count > 0) {
            feedback.publish(self, String.format(Locale.ROOT, "%d,%.1f,%d", ++stated, (double) sumMicros / count, count));
        }
        if (balance != null) {
            balance.adjust(downstreamLatencies());
            feedback.publish("shares/" + balanceTo + "/from/" + self, nowMs + "," + Arrays.toString(balance.shares()));
        }
        periodStartMs = nowMs;
        sumMicros = count = 0;
    }

    /** T_j of every downstream task stated since the last period, NaN for tasks that stated nothing new. */
    private double[] downstreamLatencies() {
        double[] t = new double[downstream];
        Arrays.fill(t, Double.NaN);
        for (int j = 0; j < downstream; j++) {
            String value = feedback.latest(balanceTo + "/" + j);
            if (value != null) {
                String[] parts = value.split(",");
                long sequence = Long.parseLong(parts[0]);
                if (sequence != lastSeen[j]) {
                    lastSeen[j] = sequence;
                    t[j] = Double.parseDouble(parts[1]);
                }
            }
        }
        return t;
    }

    @Override
    public void close() throws Exception {
        feedback = Feedback.release(feedback);
        super.close();
    }
}
