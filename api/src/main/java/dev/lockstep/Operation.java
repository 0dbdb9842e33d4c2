package dev.lockstep;

/**
 * A handle to one request registered on one worker: an I/O call, a timer, a sync.
 *
 * <p>The request was handed to its worker when the operation was created; it proceeds whether or not the
 * operation is polled, and its result is kept until observed. Operations may be polled, awaited and closed
 * from any thread: on the owning worker they observe the worker's driver directly, elsewhere they forward
 * observation through the worker's mailbox.
 *
 * <p>Closing is the operation's end of life: it cancels the request where that is safe (reads, receives,
 * sends, accepts, timers — the buffers stay owned by the runtime until the kernel lets them go) and lets
 * retained work (writes, syncs) finish, dropping its result. Close means close: any other party still polling
 * or awaiting the operation — a fiber on any worker, a plain thread — is woken and reads
 * {@link ClosedException}; a waker the closing thread installed itself is released instead. A result that
 * holds a resource (a {@link Connection}, a {@link Listener}, an {@link OpenedBlob}) and was not observed is
 * closed by the runtime, also when the cancellation came too late to stop it. Closing after the result was
 * observed, or twice, does nothing.
 *
 * <p><b>Interrupts</b>, the same on every runtime. In a task, a wait is not ended by {@link Thread#interrupt()},
 * just as {@link java.util.concurrent.locks.Lock#lock()} is not: the fiber parks properly (it never spins, and
 * its worker goes on running other tasks) and the wait ends only as it otherwise would, with the interrupt
 * status still set when it returns or throws — so a library that restores the status
 * ({@code catch (InterruptedException e) { Thread.currentThread().interrupt(); }}) changes nothing for the
 * task's later waits. Cancel a task's wait with {@link Handle#abort()}, {@link Clock#timeout} or
 * {@link #close()}. On a plain thread an interrupt, set before the wait or arriving during it, ends the wait
 * unless the result is already ready: the operation is closed and {@link AbortedException} is thrown, the
 * status still set — the JDK's rule for blocking calls, with an unchecked exception.
 *
 * @param <T> the result
 */
public interface Operation<T> extends AutoCloseable {

    /**
     * Observes the request once.
     *
     * <p>If the result is ready it is returned and consumed; the waker is not touched. Otherwise the waker is
     * installed — {@link Waker#retain()} is called unless the installed waker {@link Waker#willWake} it — and
     * woken once when the result is ready. A throwing {@code retain} propagates to the caller and leaves the
     * operation registered and closable.
     *
     * @param waker the waker to wake, not null
     * @return pending, or ready with the value or the failure
     */
    Poll<T> poll(Waker waker);

    /**
     * Waits for the result: parks the current fiber, or on a plain thread the thread.
     *
     * @return the value
     * @throws ClosedException if the worker closed, the operation was closed, or the awaiting task is aborted
     *     (the operation is then closed)
     * @throws TimeoutException if an enclosing {@link Clock#timeout} fired (the operation is then closed)
     * @throws AbortedException on a plain thread whose interrupt status is set while the result is not ready
     *     (the operation is then closed, the status stays set); never in a task, see the class documentation
     * @throws LockstepException the request's own failure, typed
     */
    T await();

    /** Releases this operation; see the class documentation. Idempotent, from any thread. */
    @Override
    void close();
}
