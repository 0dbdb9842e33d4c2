package dev.lockstep.engine.request;

import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.task.Fiber;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.worker.Worker;

/**
 * An operation whose result was known when it was made: a read that the page cache answered at the call
 * ({@link dev.lockstep.kernel.Ring#readWithoutWaiting}). It holds no request, slot or fd: nothing to cancel or
 * release. As every operation, it gives its result once: a poll or await after the result was taken, or after a
 * close, fails with {@link ClosedException} — and so does one after its worker began closing, as a registered
 * operation's does once its run is over ({@code Runner}: what escaped {@code start} observes ClosedException).
 *
 * <p>Threads: the flag is volatile, so a close on one thread is seen by a later poll on another; two polls at
 * once are not supported, as for any operation ({@link Registration}). The value is final: whoever is handed the
 * operation sees it.
 *
 * @param <T> the value
 */
public final class Completed<T> implements Operation<T> {
    private final Worker owner;
    private final T value;
    private volatile boolean taken;

    private Completed(Worker owner, T value) {
        this.owner = owner;
        this.value = value;
    }

    /**
     * A completed operation without a value.
     *
     * @param owner the worker whose call answered it
     */
    public static <T> Completed<T> done(Worker owner) {
        return new Completed<>(owner, null);
    }

    /**
     * A completed operation with a value. The value is kept in the operation itself, not in a {@link Poll}: an
     * await by a task takes it with no other object made ({@link #await}); a poll makes its {@code Poll} then.
     *
     * @param owner the worker whose call answered it
     * @param value the value
     */
    public static <T> Completed<T> of(Worker owner, T value) {
        return new Completed<>(owner, value);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Poll<T> poll(Waker waker) {
        java.util.Objects.requireNonNull(waker, "waker");
        ClosedException refused = take();
        if (refused != null) {
            return Poll.failed(refused);
        }
        return value == null ? (Poll<T>) Request.DONE : Poll.ready(value);
    }

    /**
     * In a task that was not aborted, the value at once, with no waker and no {@code Poll}: what
     * {@link Fibers#await} would return after its abort check and one poll. On a plain thread or in an aborted
     * task, through {@link Fibers#await}, whose rules for those hold for every operation.
     */
    @Override
    public T await() {
        Fiber fiber = Fibers.current();
        if (fiber == null || fiber.isAborted()) {
            return Fibers.await(this);
        }
        ClosedException refused = take();
        if (refused != null) {
            throw refused;
        }
        return value;
    }

    /** Takes the result: null if it may be given, else why not (taken before, closed, or the run is over). */
    private ClosedException take() {
        if (taken) {
            return new ClosedException("this operation's result was already taken, or the operation was closed");
        }
        taken = true;
        if (owner.isClosing()) {
            return new ClosedException(owner + " is closed: the run this operation belonged to is over");
        }
        return null;
    }

    @Override
    public void close() {
        taken = true;
    }

    @Override
    public String toString() {
        return "Operation(completed at the call)";
    }
}
