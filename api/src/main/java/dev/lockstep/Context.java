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
     * Random numbers for the task's own choices: a randomized election timeout, a backoff's jitter, which peer to
     * ask. In the simulator every number is drawn from the run's seeded generator and recorded, so a seed replays
     * the choices and a failure they led to; nothing is drawn until the code asks. In production it is a fast
     * unseeded generator (the calling thread's {@link java.util.concurrent.ThreadLocalRandom}). Not for keys,
     * tokens or anything that must not be guessed.
     *
     * @return the generator; in the simulator, to be drawn from by the run's tasks only (any other thread's draw
     *     throws {@link IllegalStateException} and fails the run)
     * @throws IllegalStateException when not called from a task of this runtime
     */
    java.util.random.RandomGenerator random();

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
