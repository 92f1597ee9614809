package io.klink.agent;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How the scheduler carries out a choice.
 *
 * <ul>
 *   <li>{@link #PAUSE} (the paper's §5): tasks not chosen suspend their mailbox default action — they read
 *       nothing until resumed, even when the chosen tasks leave the core idle (blocked on a fetch, a window
 *       firing, an empty queue).</li>
 *   <li>{@link #PRIORITY}: tasks not chosen keep running at the lowest OS priority (nice 19: CFS gives such a
 *       thread about 1.5 % of a core contended by one nice-0 thread) and the chosen ones at normal priority.
 *       The order among runnable tasks is the policy's, as with pausing, but no core idles while any task has
 *       work: work-conserving by construction.</li>
 * </ul>
 *
 * <p>Priority needs the TaskManager JVM started with {@code -XX:ThreadPriorityPolicy=1
 * -XX:JavaPriority2_To_OSPriority=19} (our stack does) and root or CAP_SYS_NICE: without it HotSpot ignores
 * {@link Thread#setPriority} silently, so {@link #priorityWorks()} checks once on a thread of its own.
 */
public enum Enforcement {
    PAUSE, PRIORITY;

    /**
     * The Java priority a demoted task thread gets, mapped to nice 19. Not {@link Thread#MIN_PRIORITY}: Flink's
     * metric query service runs at 1, and demoting it too would starve the REST metrics under overload.
     */
    public static final int DEMOTED_PRIORITY = 2;

    /** The control file's parameter that names the enforcement. */
    public static final String PARAMETER = "enforce";

    /** The values {@link #parse} takes, as klinkctl's --enforce does. */
    public static final List<String> NAMES = Arrays.stream(values()).map(e -> e.name().toLowerCase(Locale.ROOT)).toList();

    /** The control file's {@code enforce} parameter; missing = pause. */
    public static Enforcement parse(String value) {
        if (value == null || value.isBlank() || value.equals("pause")) {
            return PAUSE;
        }
        if (value.equals("priority")) {
            return PRIORITY;
        }
        throw new IllegalArgumentException("parameter enforce must be pause or priority, got " + value);
    }

    private static volatile Boolean priorityWorks;

    /** True if lowering a thread's Java priority really lowers its OS priority in this JVM. */
    public static boolean priorityWorks() {
        if (priorityWorks == null) {
            priorityWorks = probePriority();
        }
        return priorityWorks;
    }

    private static boolean probePriority() {
        int[] nice = {Integer.MIN_VALUE};
        Thread probe = new Thread(() -> {
            Thread.currentThread().setPriority(DEMOTED_PRIORITY);
            nice[0] = ownNice();
        }, "klink-priority-probe");
        probe.start();
        try {
            probe.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return nice[0] > 0;
    }

    /** The calling thread's nice value from /proc, or MIN_VALUE if it cannot be read. */
    static int ownNice() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            // fields after "(comm) ": state is field 3, nice is field 19
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Integer.parseInt(fields[16]);
        } catch (Exception | Error e) {
            return Integer.MIN_VALUE;
        }
    }
}
