package io.klink.agent;

import net.bytebuddy.asm.Advice;

/** Inlined at the start of {@code StreamTask.processInput(Controller)}: skips the body while paused. */
public final class ProcessInputAdvice {

    private ProcessInputAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    public static boolean enter(@Advice.This Object task, @Advice.Argument(0) Object controller) {
        return TaskGate.beforeProcessInput(task, controller);
    }
}
