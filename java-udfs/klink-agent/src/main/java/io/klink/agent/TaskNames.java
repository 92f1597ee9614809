package io.klink.agent;

/** What a task's name and class tell the scheduler (DESIGN.md §4: operator names are prefixed {@code qNN/}). */
public final class TaskNames {

    private static final String SOURCE_PREFIX = "Source: ";
    /** Between the operators of a chained task's name. */
    private static final String CHAIN_SEPARATOR = " -> ";
    /** An operator named {@code qNN/window} or {@code qNN/<what>-window} (a query with several windows, e.g. LRB). */
    private static final java.util.regex.Pattern WINDOW_OPERATOR =
            java.util.regex.Pattern.compile("/([a-z0-9]+-)*window\\b");
    private static final java.util.regex.Pattern SUBTASK_SUFFIX =
            java.util.regex.Pattern.compile("^(.*?) \\(\\d+/\\d+\\)(#\\d+)?$");

    private TaskNames() {
    }

    /**
     * The query id: the first operator name's prefix before '/', e.g. {@code "Source: q07/source -> q07/map (1/1)#0"}
     * gives {@code "q07"}. A name without '/' is its own query (the name without the subtask suffix).
     */
    public static String queryId(String taskName) {
        String name = stripSubtask(taskName == null ? "" : taskName.trim());
        if (name.startsWith(SOURCE_PREFIX)) {
            name = name.substring(SOURCE_PREFIX.length()).trim();
        }
        int slash = name.indexOf('/');
        String id = slash > 0 ? name.substring(0, slash).trim() : name;
        return id.isEmpty() ? "unknown" : id;
    }

    /** The name without Flink's {@code " (1/4)#0"} suffix. */
    public static String stripSubtask(String taskName) {
        java.util.regex.Matcher m = SUBTASK_SUFFIX.matcher(taskName);
        return m.matches() ? m.group(1) : taskName;
    }

    /**
     * What the task does in its query: the first operator's name without the query prefix, e.g.
     * {@code "Source: q07/source -> q07/markers (1/1)#0"} gives {@code "source"}, {@code "q07/toll-window -> q07/output"}
     * gives {@code "toll-window"}. A name without '/' is its own role.
     */
    public static String role(String taskName) {
        String name = stripSubtask(taskName == null ? "" : taskName.trim());
        int chained = name.indexOf(CHAIN_SEPARATOR);
        String first = (chained >= 0 ? name.substring(0, chained) : name).trim();
        if (first.startsWith(SOURCE_PREFIX)) {
            first = first.substring(SOURCE_PREFIX.length()).trim();
        }
        String role = first.substring(first.indexOf('/') + 1).trim();
        return role.isEmpty() ? "unknown" : role;
    }

    /** A new-style source task (KafkaSource runs in SourceOperatorStreamTask). */
    public static boolean isSource(String taskClassName) {
        return taskClassName != null && taskClassName.contains("SourceOperatorStreamTask");
    }

    public static boolean isWindow(String taskName) {
        return taskName != null && WINDOW_OPERATOR.matcher(taskName).find();
    }

    public static boolean isSink(String taskName) {
        return taskName != null && taskName.toLowerCase(java.util.Locale.ROOT).contains("sink");
    }

    /** Short label for the scheduler log: {@code q07:src#0}, {@code q07:win#1}, {@code q07:op#0}. */
    public static String label(String queryId, boolean source, boolean window, int subtask) {
        String kind = source ? "src" : window ? "win" : "op";
        return queryId.replace(',', '_').replace(';', '_') + ":" + kind + "#" + subtask;
    }

    /** The task's kind in full, classified as {@link #label} does: {@code source}, {@code window} or {@code op}. */
    public static String kind(boolean source, boolean window) {
        return source ? "source" : window ? "window" : "op";
    }
}
