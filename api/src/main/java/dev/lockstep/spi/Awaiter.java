package dev.lockstep.spi;

import dev.lockstep.AbortedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import java.util.concurrent.locks.LockSupport;

/**
 * How a runtime waits for an {@link Operation} that is not its own: the primitives of {@code dev.lockstep.sync}
 * are written against {@link Operation#poll} and {@link dev.lockstep.Waker} only, and their {@code await()} asks
 * the runtime on the class path, found through {@link java.util.ServiceLoader}, to park the calling fiber the way
 * its own operations do (so that aborts, {@code Clock.timeout} scopes and the simulator's scheduler all apply).
 *
 * <p>Implemented by Lockstep's runtimes, not by applications.
 */
public interface Awaiter {
    /**
     * Waits for the operation from the calling fiber or thread.
     *
     * @param operation the operation
     * @param <T> its value
     * @return its value
     * @throws dev.lockstep.LockstepException as {@link Operation#await()} documents
     */
    <T> T await(Operation<T> operation);

    /**
     * The wait of a plain thread, which has no fiber to park: the operation is polled with a waker that unparks
     * the calling thread (equivalent, by {@link Waker#willWake}, to any other such waker of the same thread), which
     * parks between polls. What a runtime's {@link #await} does on a thread that is not
     * one of its fibers, and what {@code dev.lockstep.sync} does when no runtime is on the class path.
     *
     * <p>The JDK's rule for an interruptible blocking call, with {@link AbortedException} in place of the checked
     * {@code InterruptedException} and the status kept. The status is read after each poll that found the result
     * pending, and {@code LockSupport.park} returns at once while it is set, so an interrupt before the wait or
     * during it ends the wait at the next check; a result already ready is returned.
     *
     * @param operation the operation
     * @param <T> its value
     * @return its value
     * @throws AbortedException if the calling thread's interrupt status is set while the result is not ready: the
     *     operation is closed and the status stays set
     * @throws dev.lockstep.LockstepException as {@link Operation#await()} documents
     */
    static <T> T parkThread(Operation<T> operation) {
        Thread thread = Thread.currentThread();
        // Equivalent to any waker of this thread, so an operation polled by an earlier wait of the thread (one
        // that was interrupted, say) keeps one listed copy, not one per wait.
        Waker waker = new ThreadWaker(thread);
        while (true) {
            Poll<T> poll = operation.poll(waker);
            if (poll.isReady()) {
                return poll.get();
            }
            if (thread.isInterrupted()) {
                operation.close();
                throw new AbortedException(thread + " was interrupted while awaiting " + operation
                        + ": the operation is closed");
            }
            LockSupport.park(operation);
        }
    }
}
