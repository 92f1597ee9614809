package io.klink.agent;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.streaming.runtime.tasks.mailbox.MailboxDefaultAction;
import org.apache.flink.streaming.runtime.tasks.mailbox.PeriodTimer;

/** A stand-in for Flink's mailbox controller: counts suspensions and resumes like MailboxProcessor would. */
class FakeMailbox implements MailboxDefaultAction.Controller {

    final AtomicInteger suspends = new AtomicInteger();
    final AtomicInteger resumes = new AtomicInteger();
    volatile Suspension current;
    Runnable onSuspend = () -> { };

    final class Suspension implements MailboxDefaultAction.Suspension {
        final AtomicInteger resumed = new AtomicInteger();

        @Override
        public void resume() {
            resumed.incrementAndGet();
            resumes.incrementAndGet();
            if (current == this) {
                current = null;
            }
        }
    }

    boolean suspended() {
        return current != null;
    }

    @Override
    public void allActionsCompleted() {
    }

    @Override
    public MailboxDefaultAction.Suspension suspendDefaultAction(PeriodTimer timer) {
        return suspendDefaultAction();
    }

    @Override
    public MailboxDefaultAction.Suspension suspendDefaultAction() {
        suspends.incrementAndGet();
        Suspension s = current != null ? current : new Suspension();
        current = s;
        onSuspend.run();
        return s;
    }
}
