package dev.lockstep;

/**
 * Everything a task may use: spawning and supervision, time, storage and network.
 *
 * <p>A context is bound to one node of the supervision tree (see {@link Spawner}) and to the worker that
 * runs the task. It may be handed to other fibers of the same runtime; its I/O calls register on the worker
 * of the fiber that makes them.
 */
public interface Context extends Spawner, Clock, Storage, Network {

    /**
     * The buffer pool of the worker running the calling task: where {@link IoBuffer}s for the buffer calls
     * of {@link Blob}, {@link Stream} and {@link Sink} come from.
     *
     * @return the current worker's pool
     * @throws IllegalStateException when not called from a task of this runtime
     */
    BufferPool buffers();

    /**
     * A digest of everything the runtime has done so far, for determinism checks.
     *
     * <p>The simulator returns the hex SHA-256 chain of its auditor; the same seed and the same code give
     * the same digest. A production runtime, which is not deterministic, returns an empty string.
     *
     * @return the hex digest, or {@code ""} where the runtime keeps none
     */
    default String digest() {
        return "";
    }
}
