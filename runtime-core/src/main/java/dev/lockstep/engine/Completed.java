package dev.lockstep.engine;

import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;

/**
 * An operation whose result was known when it was made: a read that the page cache answered at the call
 * ({@link dev.lockstep.kernel.Ring#readWithoutWaiting}). It holds no request, slot or fd: nothing to cancel or
 * release. As every operation, it gives its result once: a poll or await after the result was taken, or after a
 * close, fails with {@link ClosedException}.
 *
 * <p>Threads: the flag is volatile, so a close on one thread is seen by a later poll on another; two polls at
 * once are not supported, as for any operation ({@link Registration}).
 *
 * @param <T> the value
 */
final class Completed<T> implements Operation<T> {
    private final Poll<T> result;
    private volatile boolean taken;

    private Completed(Poll<T> result) {
        this.result = result;
    }

    /** A completed operation without a value; shares the one ready outcome of every such result. */
    @SuppressWarnings("unchecked")
    static <T> Completed<T> done() {
        return new Completed<>((Poll<T>) Request.DONE);
    }

    static <T> Completed<T> of(T value) {
        return new Completed<>(Poll.ready(value));
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
