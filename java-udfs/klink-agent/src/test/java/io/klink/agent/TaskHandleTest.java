package io.klink.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.klink.scheduler.TaskInfo;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TaskHandleTest {

    static TaskInfo info(String id) {
        return new TaskInfo(id, "q01", "q01/window", 0, -1, false, true, false, List.of());
    }

    @AfterEach
    void reset() {
        TaskGate.reset();
    }

    @Test
    void runsUntilAPauseIsRequestedThenSuspendsAndSkips() {
        TaskHandle h = new TaskHandle(info("t"), Thread.currentThread(), new FakeProbe());
        FakeMailbox mailbox = new FakeMailbox();
        assertFalse(h.onProcessInput(mailbox));
        h.requestPause();
        assertTrue(h.onProcessInput(mailbox));
        assertTrue(mailbox.suspended());
        assertTrue(h.isSuspended());
        assertTrue(h.resume());
        assertFalse(mailbox.suspended());
        assertFalse(h.isSuspended());
        assertFalse(h.resume(), "nothing left to resume");
        assertEquals(1, mailbox.resumes.get());
        assertFalse(h.onProcessInput(mailbox));
    }

    @Test
    void resumeBetweenCheckAndPublishIsNotLost() {
        TaskHandle h = new TaskHandle(info("t"), Thread.currentThread(), new FakeProbe());
        FakeMailbox mailbox = new FakeMailbox();
        // The scheduler clears the flag after the task saw it set but before the suspension is published.
        mailbox.onSuspend = h::resume;
        h.requestPause();
        assertTrue(h.onProcessInput(mailbox), "the body is skipped once");
        assertFalse(mailbox.suspended(), "the task resumed itself");
        assertEquals(1, mailbox.resumes.get());
        assertFalse(h.isSuspended());
    }

    @Test
    void concurrentPauseResumeNeverStrandsASuspension() throws Exception {
        TaskHandle h = new TaskHandle(info("t"), Thread.currentThread(), new FakeProbe());
        FakeMailbox mailbox = new FakeMailbox();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);
        Thread scheduler = new Thread(() -> {
            started.countDown();
            for (int i = 0; i < 200_000; i++) {
                if ((i & 1) == 0) {
                    h.requestPause();
                } else {
                    h.resume();
                }
            }
            h.resume();
            stop.set(true);
        });
        scheduler.start();
        started.await();
        while (!stop.get()) {
            if (!mailbox.suspended()) {
                h.onProcessInput(mailbox); // the mailbox calls the default action only while not suspended
            }
        }
        scheduler.join();
        // Whatever interleaving happened, after the scheduler's final resume nothing stays suspended.
        assertFalse(mailbox.suspended());
        assertFalse(h.isSuspended());
        assertEquals(mailbox.suspends.get() > 0, mailbox.resumes.get() > 0);
    }

    @Test
    void gateIsInertUntilActivated() {
        TaskHandle h = TaskGate.register(info("t"), new FakeProbe());
        FakeMailbox mailbox = new FakeMailbox();
        h.requestPause();
        assertFalse(TaskGate.beforeProcessInput(null, mailbox), "inactive gate never pauses");
        TaskGate.setActive(true);
        long before = TaskGate.suspensions();
        assertTrue(TaskGate.beforeProcessInput(null, mailbox));
        assertEquals(before + 1, TaskGate.suspensions());
        assertTrue(mailbox.suspended());
        TaskGate.setActive(false);
        assertFalse(mailbox.suspended(), "deactivation resumes everything");
        assertFalse(h.isPauseRequested());
        TaskGate.taskExited(null);
        assertTrue(TaskGate.tasks().isEmpty());
        assertEquals(null, TaskGate.current());
    }
}
