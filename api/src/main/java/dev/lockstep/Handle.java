package dev.lockstep;

/**
 * The handle of a spawned task. It may be awaited, polled and aborted from any thread.
 *
 * @param <T> the task's value
 */
public interface Handle<T> {

    /**
     * Waits for the task. An interrupt does not end the wait in a task and ends it on a plain thread, as
     * {@link Operation#await()} says.
     *
     * @return its value
     * @throws ClosedException if the task was aborted (directly or by its supervisor), or never ran because
     *     its node was already aborted
     * @throws ExitedException if the task threw; the task's exception is the cause
     * @throws AbortedException on a plain thread whose interrupt status is set before the task finished (the
     *     task goes on; the status stays set)
     */
    T await();

    /**
     * The outcome without waiting.
     *
     * @param waker woken once when the task finishes, if it has not yet; may be {@code null}
     * @return pending, or ready with the value or with the exception {@link #await()} would throw
     */
    Poll<T> poll(Waker waker);

    /** Aborts the task and every task below it. Idempotent; no effect on a finished task. */
    void abort();

    /**
     * Whether the task has finished, in any way.
     *
     * @return true once the outcome is known
     */
    boolean isDone();
}
