package io.klink.agent;

import net.bytebuddy.asm.Advice;

/** Inlined around {@code StreamTask.invoke()}: registers the task on its thread, deregisters it at the end. */
public final class InvokeAdvice {

    private InvokeAdvice() {
    }

    @Advice.OnMethodEnter
    public static void enter(@Advice.This Object task) {
        TaskGate.taskStarted(task);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    public static void exit(@Advice.This Object task) {
        TaskGate.taskExited(task);
    }
}
