package dev.lockstep;

/**
 * The handle of a spawned task. It may be awaited, polled and aborted from any thread.
 *
 * <p>A handle is an {@link Operation} of the task's outcome, so it races and joins as any operation does: a task
 * raced against a timer is {@code Select.either(handle, ctx.sleeper(d))}, one task waited for with a deadline is
 * {@code ctx.timeout(d, handle::await)}, no {@code Join} needed. It differs from a request's operation in two
 * ways, because a handle is one task's, shared by everyone who holds it, not one caller's request:
 * <ul>
 *   <li><b>Stopping the wait never stops the task.</b> {@link #close()} ends only the closing party's interest,
 *       as closing a write's operation lets the write finish: a race that a timer wins (which closes the handle,
 *       its loser), a timeout that fires during {@link #await()}, an aborted awaiting task, all leave the task
 *       running. Abort it with {@link #abort()} (or its supervisor) if it should stop.</li>
 *   <li><b>The outcome is read, not consumed.</b> Every {@link #poll} or {@link #await()} after the task finished,
 *       by any party, before or after a {@code close}, sees the same value or failure; a value that holds a
 *       resource stays the task's to close, not the runtime's.</li>
 * </ul>
 *
 * @param <T> the task's value
 */
public interface Handle<T> extends Operation<T> {

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
     * @throws TimeoutException if an enclosing {@link Clock#timeout} fired first (the task goes on)
     */
    @Override
    T await();

    /**
     * The outcome without waiting.
     *
     * @param waker woken once when the task finishes, if it has not yet; may be {@code null}
     * @return pending, or ready with the value or with the exception {@link #await()} would throw; the same
     *     outcome on every poll once the task finished
     */
    @Override
    Poll<T> poll(Waker waker);

    /** Aborts the task and every task below it. Idempotent; no effect on a finished task. */
    void abort();

    /**
     * Ends the closing party's wait, and nothing else: the task goes on, and {@link #await()} and {@link #poll}
     * still answer with its outcome, for this party and every other (see the class documentation). A waker an
     * earlier poll left listed is woken once when the task finishes. Idempotent, from any thread.
     */
    @Override
    void close();

    /**
     * Whether the task has finished, in any way.
     *
     * @return true once the outcome is known
     */
    boolean isDone();
}
