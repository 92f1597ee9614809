package io.klink.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Properties;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.utility.JavaModule;

/**
 * Java agent attached to every Flink TaskManager ({@code env.java.opts.taskmanager}).
 *
 * <p>For now it announces itself: it logs one line, publishes its version as the system property
 * {@value #VERSION_PROPERTY} and, when {@code statusDir} is given, writes {@code <pid>.json} there so
 * that {@code klinkctl status} can show which TaskManagers carry which agent version. It then installs
 * the pause gate (ByteBuddy advice on {@code StreamTask}, see {@link TaskGate}) and starts the
 * scheduler thread, idle until klinkctl's control channel gives it a run ({@link SchedulerThread},
 * {@link HarnessThread}).
 */
public final class KlinkAgent {

    public static final String VERSION_PROPERTY = "klink.agent.version";

    private KlinkAgent() {}

    public static void premain(String agentArgs, Instrumentation instrumentation) {
        AgentOptions options = AgentOptions.parse(agentArgs);
        String version = version();
        System.setProperty(VERSION_PROPERTY, version);
        long pid = ProcessHandle.current().pid();
        System.out.println("klink-agent " + version + " loaded in pid " + pid + " with options " + options.values());
        if (options.statusDir() != null) {
            writeStatus(options.statusDir(), pid, version);
        }
        if (instrumentation != null) {
            try {
                installAdvice(instrumentation);
                Safepoints.open(instrumentation);
                HarnessChannel channel = options.channel(hostName() + ":" + pid, version);
                if (channel != null) {
                    Scheduler scheduler = Scheduler.forTaskManager(channel);
                    new SchedulerThread(scheduler).start();
                    new HarnessThread(channel, scheduler).start();
                }
            } catch (Throwable t) {
                // The agent must never stop a TaskManager from starting: without it the scheduler is off.
                System.err.println("klink-agent: scheduler disabled: " + t);
            }
        }
    }

    static final String STREAM_TASK = "org.apache.flink.streaming.runtime.tasks.StreamTask";

    /** Advice on StreamTask.processInput(Controller) (pause gate) and invoke() (register / deregister). */
    static void installAdvice(Instrumentation instrumentation) {
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .ignore(ElementMatchers.not(ElementMatchers.named(STREAM_TASK)))
                .with(new AgentBuilder.Listener.Adapter() {
                    @Override
                    public void onTransformation(TypeDescription type, ClassLoader loader, JavaModule module,
                                                 boolean loaded, DynamicType dynamicType) {
                        System.out.println("klink-agent: instrumented " + type.getName());
                    }

                    @Override
                    public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded,
                                        Throwable throwable) {
                        System.err.println("klink-agent: could not instrument " + typeName + ": " + throwable);
                    }
                })
                .type(ElementMatchers.named(STREAM_TASK))
                .transform((builder, type, loader, module, domain) -> builder
                        .visit(Advice.to(ProcessInputAdvice.class).on(ElementMatchers.named("processInput")
                                .and(ElementMatchers.takesArguments(1))))
                        .visit(Advice.to(InvokeAdvice.class).on(ElementMatchers.named("invoke")
                                .and(ElementMatchers.takesArguments(0)))))
                .installOn(instrumentation);
    }

    public static void agentmain(String agentArgs, Instrumentation instrumentation) {
        premain(agentArgs, instrumentation);
    }

    /** The kernel's host name: no name lookup, which can stall a TaskManager's start where DNS is slow. */
    static String hostName() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException | RuntimeException e) {
            return "host";
        }
    }

    /** The version Maven stamped into the jar (version.properties is filtered at build time). */
    public static String version() {
        try (InputStream in = KlinkAgent.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path writeStatus(Path statusDir, long pid, String version) {
        String json = String.format(
                "{\"pid\": %d, \"version\": \"%s\", \"loaded_at\": \"%s\"}%n", pid, version, Instant.now());
        try {
            Files.createDirectories(statusDir);
            Path target = statusDir.resolve(pid + ".json");
            Path tmp = statusDir.resolve(pid + ".json.tmp");
            Files.writeString(tmp, json, StandardCharsets.UTF_8);
            return Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            // The agent must never stop a TaskManager from starting: report and carry on.
            System.err.println("klink-agent: could not write status to " + statusDir + ": " + e);
            return null;
        }
    }
}
