package dev.lockstep.engine.request;

import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
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
 * once are not supported, as for any operation ({@link Registration}).
 *
 * @param <T> the value
 */
public final class Completed<T> implements Operation<T> {
    private final Worker owner;
    private final Poll<T> result;
    private volatile boolean taken;

    private Completed(Worker owner, Poll<T> result) {
        this.owner = owner;
        this.result = result;
    }

    /**
     * A completed operation without a value; shares the one ready outcome of every such result.
     *
     * @param owner the worker whose call answered it
     */
    @SuppressWarnings("unchecked")
    public static <T> Completed<T> done(Worker owner) {
        return new Completed<>(owner, (Poll<T>) Request.DONE);
    }

    /**
     * A completed operation with a value.
     *
     * @param owner the worker whose call answered it
     * @param value the value
     */
    public static <T> Completed<T> of(Worker owner, T value) {
        return new Completed<>(owner, Poll.ready(value));
    }

    @Override
    public Poll<T> poll(Waker waker) {
        java.util.Objects.requireNonNull(waker, "waker");
        return take();
    }

    /** Through {@link Fibers#await}, so that an aborted task's await throws as it does for any operation. */
    @Override
    public T await() {
        return Fibers.await(this);
    }

    private Poll<T> take() {
        if (taken) {
            return Poll.failed(new ClosedException("this operation's result was already taken, or the operation"
                    + " was closed"));
        }
        if (owner.isClosing()) {
            taken = true;
            return Poll.failed(new ClosedException(owner + " is closed: the run this operation belonged to is"
                    + " over"));
        }
        taken = true;
        return result;
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
