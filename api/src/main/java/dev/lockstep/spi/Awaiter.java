package dev.lockstep.spi;

import dev.lockstep.Operation;

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
}
