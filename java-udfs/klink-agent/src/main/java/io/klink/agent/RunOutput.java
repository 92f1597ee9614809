package io.klink.agent;

/**
 * Where one run's rows go ({@code scheduler.csv}, {@code estimator.csv}, {@code tasks.csv}): in the TaskManager,
 * the harness's control channel ({@link HarnessChannel#output}); rows are buffered until {@link #flush()}.
 */
public interface RunOutput {

    /** Adds a row to the run's {@code file}, whose first line is {@code header}. */
    void append(String file, String header, String row);

    /** Hands the rows added since the last flush on (HarnessThread: once a second). */
    void flush();

    /**
     * Sends this TaskManager's task snapshots ({@link ForwardedTasks#encode}) and returns the other TaskManagers'
     * latest ones of the run; "" when there are none or the exchange failed.
     */
    String exchange(String snapshots);

    /** The run is over for this TaskManager: flushes, then says so, so the harness stops waiting for rows. */
    void close();
}
