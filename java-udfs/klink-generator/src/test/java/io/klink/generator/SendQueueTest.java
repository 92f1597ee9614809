package io.klink.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SendQueueTest {

    record Entry(long sendAt, long seq, long eventTime, int topic, long packed) {
    }

    @Test
    void heapPopsBySendTimeThenInsertionOrder() {
        SplittableRandom rng = new SplittableRandom(5);
        HeapSendQueue q = new HeapSendQueue();
        PriorityQueue<Entry> reference = new PriorityQueue<>(
                Comparator.comparingLong(Entry::sendAt).thenComparingLong(Entry::seq));
        long seq = 0;
        for (int round = 0; round < 60; round++) {
            int adds = rng.nextInt(2000);
            for (int i = 0; i < adds; i++) {
                Entry e = new Entry(rng.nextLong(1000), seq++, rng.nextLong(), rng.nextInt(8), rng.nextLong());
                reference.add(e);
                q.add(e.sendAt(), e.eventTime(), e.topic(), e.packed());
            }
            int polls = round == 59 ? q.size() : rng.nextInt(q.size() + 1);
            for (int i = 0; i < polls; i++) {
                Entry e = reference.poll();
                assertEquals(e.sendAt(), q.peekSendAt());
                assertEquals(e.eventTime(), q.peekEventTimeMs());
                assertEquals(e.topic(), q.peekTopic());
                assertEquals(e.packed(), q.peekPacked());
                q.removeFirst();
            }
            assertEquals(reference.size(), q.size());
        }
        assertTrue(q.isEmpty());
    }

    @Test
    void heapDrainedInOneGoIsSortedAndStable() {
        SplittableRandom rng = new SplittableRandom(6);
        HeapSendQueue q = new HeapSendQueue();
        List<Entry> in = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            Entry e = new Entry(rng.nextLong(300), i, i, i % 4, i);
            in.add(e);
            q.add(e.sendAt(), e.eventTime(), e.topic(), e.packed());
        }
        in.sort(Comparator.comparingLong(Entry::sendAt).thenComparingLong(Entry::seq));
        for (Entry e : in) {
            assertEquals(e.sendAt(), q.peekSendAt());
            assertEquals(e.packed(), q.peekPacked());
            assertEquals(e.topic(), q.peekTopic());
            q.removeFirst();
        }
        assertTrue(q.isEmpty());
    }

    @Test
    void fifoKeepsOrderAcrossGrowthAndWrapAround() {
        FifoSendQueue q = new FifoSendQueue();
        long next = 0;
        long expect = 0;
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 3000 * (round % 5 + 1); i++) {
                q.add(next, next + 1, (int) (next % 3), next * 7);
                next++;
            }
            while (q.size() > 1000) {
                assertEquals(expect, q.peekSendAt());
                assertEquals(expect + 1, q.peekEventTimeMs());
                assertEquals(expect % 3, q.peekTopic());
                assertEquals(expect * 7, q.peekPacked());
                q.removeFirst();
                expect++;
            }
        }
        for (int i = 0; i < q.size(); i++) {
            assertEquals(expect + i, q.sendAtAt(i));
        }
    }

    @Test
    void fifoRejectsDecreasingSendTimes() {
        FifoSendQueue q = new FifoSendQueue();
        q.add(10, 0, 0, 0);
        assertThrows(IllegalStateException.class, () -> q.add(9, 0, 0, 0));
    }

    @Test
    void queueKindFollowsTheDelayAndGapModels() {
        Gaps regular = Gaps.regular(new Schedule(1000));
        assertInstanceOf(FifoSendQueue.class, SendQueue.forSchedule(new ConstantDelay(300), regular));
        assertInstanceOf(HeapSendQueue.class,
                SendQueue.forSchedule(new ConstantDelay(300), Gaps.parse("gamma:2", new Schedule(1000))));
        DelayModel varying = new DelayModel() {
            @Override
            public long sampleDelayMs(SplittableRandom rng) {
                return rng.nextLong(100);
            }

            @Override
            public String spec() {
                return "test";
            }
        };
        assertInstanceOf(HeapSendQueue.class, SendQueue.forSchedule(varying, regular));
    }
}
