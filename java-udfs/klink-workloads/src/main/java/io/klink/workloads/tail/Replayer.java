package io.klink.workloads.tail;

import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The spout's second half, chained to it (only the source side replays, so no stage duplicates records): sends
 * each record on and, by {@link Mode},
 * <ul>
 *   <li>{@code ADAPTIVE}: the seed's adaptive timeout with selective replay (§3.1). It keeps each record until the
 *       records task acknowledges its first copy over the {@link Feedback} channel, with the record's latency;
 *       a record older (since its creation) than the {@link AdaptiveTimeout} is replayed once as a new copy, which
 *       the rebalance exchange sends down another path. The timeout follows Algorithm 1 every period.</li>
 *   <li>{@code REPLICATE}: the paper's blind replication baseline (Table 2): a random {@code fraction} of the
 *       records is sent twice at once.</li>
 * </ul>
 * The records task keeps the first copy to arrive and drops the others, so the faster copy's latency counts.
 */
public final class Replayer extends AbstractStreamOperator<TailRecord> implements OneInputStreamOperator<TailRecord, TailRecord> {

    public enum Mode { ADAPTIVE, REPLICATE }

    /** {@code periodMs}: Algorithm 1's adjustment period (the seed: 1 s). */
    public record Settings(Mode mode, String bootstrap, String topic, String query, long periodMs, double fraction,
                           long seed) implements Serializable {}

    /** How often unacknowledged records are checked against the timeout. */
    static final long SCAN_MS = 2;
    /** Records whose acknowledgement never came are forgotten after this long (the records task's horizon). */
    static final long FORGET_MS = RecordPipeline.DEDUP_HORIZON_MS;

    private final Settings settings;
    private transient Feedback feedback;
    private transient Object listener;
    private transient Queue<String> acks;
    private transient Map<Long, TailRecord> pending;
    /** Pending records not replayed yet, oldest first. */
    private transient ArrayDeque<TailRecord> byAge;
    /** Pending records already replayed once, oldest first (to forget those never acknowledged). */
    private transient ArrayDeque<TailRecord> replayedByAge;
    private transient AdaptiveTimeout timeout;
    private transient long periodStartMs;
    private transient SplittableRandom random;
    private transient long copies;

    public Replayer(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void open() throws Exception {
        super.open();
        random = new SplittableRandom(settings.seed());
        if (settings.mode() == Mode.ADAPTIVE) {
            acks = new ConcurrentLinkedQueue<>();
            pending = new HashMap<>();
            byAge = new ArrayDeque<>();
            replayedByAge = new ArrayDeque<>();
            timeout = new AdaptiveTimeout();
            feedback = Feedback.join(settings.bootstrap(), settings.topic());
            listener = feedback.listen(ackKey(settings.query()), acks::add);
            periodStartMs = getProcessingTimeService().getCurrentProcessingTime();
            getProcessingTimeService().registerTimer(periodStartMs + SCAN_MS, this::scan);
        }
    }

    /** The channel key the records task acknowledges a query's records under. */
    static String ackKey(String query) {
        return "acks/" + query;
    }

    @Override
    public void processElement(StreamRecord<TailRecord> element) {
        TailRecord r = element.getValue();
        output.collect(element);
        if (settings.mode() == Mode.REPLICATE && random.nextDouble() < settings.fraction()) {
            send(r.replayed());
        } else if (settings.mode() == Mode.ADAPTIVE) {
            pending.put(r.id, r);
            byAge.add(r);
        }
    }

    private void send(TailRecord copy) {
        copy.handedOnUs = Feedback.nowMicros();
        output.collect(new StreamRecord<>(copy));
        copies++;
    }

    private void scan(long timestamp) {
        long nowMs = getProcessingTimeService().getCurrentProcessingTime();
        for (String batch; (batch = acks.poll()) != null; ) {
            acknowledge(batch, Feedback.nowMicros());
        }
        if (nowMs - periodStartMs >= settings.periodMs()) {
            timeout.endPeriod();
            feedback.publish("timeout/" + settings.query(), String.format(Locale.ROOT, "%d,%d,%d", nowMs,
                    timeout.timeoutMicros() == Long.MAX_VALUE ? -1 : timeout.timeoutMicros(), copies));
            periodStartMs = nowMs;
        }
        replayStragglers(nowMs);
        getProcessingTimeService().registerTimer(nowMs + SCAN_MS, this::scan);
    }

    /**
     * {@code id:latencyMicros,...} from the records task: done (no replay), and Algorithm 1's statistics. The
     * latency observed is the one the timeout is compared with, the record's age when its acknowledgement reaches
     * the spout (Storm's complete latency: the records task's latency plus the way back), not the records task's
     * own figure, which would be short by the way back and make every period's timeout too early. Every
     * acknowledged record counts, replayed or not: counting only those acknowledged before the timeout would
     * censor the latencies at the timeout, and the timeout would shrink period after period until nearly every
     * record is replayed (measured: 90 % copies and p99 2 s at half load).
     */
    private void acknowledge(String batch, long nowUs) {
        for (String ack : batch.split(",")) {
            int colon = ack.indexOf(':');
            TailRecord done = colon > 0 ? pending.remove(Long.parseLong(ack, 0, colon, 10)) : null;
            if (done != null) {
                timeout.observe(Math.max(0, nowUs - done.createdMs * 1000));
            }
        }
    }

    /**
     * Oldest first: each record still pending past the timeout is replayed once (it stays pending, for its
     * acknowledgement's latency, but is not replayed again); acknowledged ones are dropped, and records never
     * acknowledged are forgotten after FORGET_MS.
     */
    private void replayStragglers(long nowMs) {
        long nowUs = nowMs * 1000;
        while (!byAge.isEmpty()) {
            TailRecord oldest = byAge.peek();
            if (!pending.containsKey(oldest.id)) {
                byAge.poll();
            } else if (nowUs - oldest.createdMs * 1000 > timeout.timeoutMicros()) {
                replayedByAge.add(byAge.poll());
                send(oldest.replayed());
            } else {
                break;
            }
        }
        forget(byAge, nowMs);
        forget(replayedByAge, nowMs);
    }

    private void forget(ArrayDeque<TailRecord> oldestFirst, long nowMs) {
        while (!oldestFirst.isEmpty() && (!pending.containsKey(oldestFirst.peek().id)
                || nowMs - oldestFirst.peek().createdMs > FORGET_MS)) {
            pending.remove(oldestFirst.poll().id);
        }
    }

    @Override
    public void close() throws Exception {
        if (feedback != null) {
            feedback.stopListening(listener);
        }
        feedback = Feedback.release(feedback);
        super.close();
    }
}
