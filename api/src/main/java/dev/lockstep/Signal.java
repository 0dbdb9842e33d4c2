package dev.lockstep;

/**
 * A stop signal from {@link Spawner#stopped()}. While open it holds the runtime's stop: {@link Spawner#stop}
 * waits until every signal is closed. Closing is idempotent and may be done from any thread.
 */
public interface Signal extends AutoCloseable {

    /**
     * Waits until stop is signalled.
     *
     * @return the stop code (the first one passed to {@link Spawner#stop})
     * @throws ClosedException if the waiting task is aborted, or the run ended before stop was signalled
     * @throws AbortedException on a plain thread whose interrupt status is set before stop was signalled (the
     *     status stays set; an interrupt does not end the wait in a task, as {@link Operation#await()} says)
     */
    int await();

    /**
     * The stop code if stop was signalled.
     *
     * @return the code, or {@code null} while not stopped
     */
    Integer poll();

    /**
     * The stop as an operation, to race with others ({@code dev.lockstep.sync.Select}): it completes with the
     * stop code once stop is signalled. Closing the operation stops only that wait; this signal stays held until
     * it is itself closed. Each call gives a new operation.
     *
     * @return an operation whose value is the stop code
     */
    Operation<Integer> asOperation();

    /** Releases this holder. */
    @Override
    void close();
}
