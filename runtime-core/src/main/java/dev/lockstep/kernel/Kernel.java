package dev.lockstep.kernel;

/**
 * An operating system for the engine: rings for workers and the synchronous calls. One per runner.
 */
public interface Kernel {

    /**
     * Opens a ring for one worker, on the worker's own thread.
     *
     * @param entries the submission queue size, a power of two in {@code [1, maxEntries()]}
     * @return the ring, owned by the calling worker
     * @throws KernelException if the kernel refuses
     */
    Ring openRing(int entries);

    /**
     * The largest ring this kernel opens.
     *
     * @return the maximum number of entries
     */
    int maxEntries();

    /**
     * The synchronous calls.
     *
     * @return the calls; thread-safe
     */
    SystemCalls system();

    /**
     * Whether the engine should record, for each {@link BlockingCall} it submits, the application's source line
     * that asked for it ({@link BlockingCall#requestedFrom()}): the call runs in a worker's service turn or on
     * another thread, where no application frame is on the stack, so a kernel that names where a resource came
     * from (the simulator's leak reports) needs it recorded at the call. Costs a stack walk per call; off by
     * default.
     *
     * @return true to record
     */
    default boolean recordsCallers() {
        return false;
    }
}
