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
     * The application's source line on the calling stack, for the engine to record at a {@link BlockingCall}'s
     * request ({@link BlockingCall#requestedFrom()}): the call itself runs in a worker's service turn or on
     * another thread, where no application frame is on the stack, so a kernel that names where a resource came
     * from (the simulator's leak reports) needs the line taken at the call. Called on the requesting thread.
     * A kernel may take the stack cheaply and turn it into text only when a report reads {@link CallSite#line()}.
     *
     * @return the call site, or null (the default) when this kernel records none
     */
    default CallSite callerSite() {
        return null;
    }

    /**
     * Random numbers for application code ({@code Context.random()}): by default the calling thread's
     * {@link java.util.concurrent.ThreadLocalRandom}, fast and unseeded; a deterministic kernel draws from its
     * seeded source and records the draws. Any thread the kernel allows.
     *
     * @return the generator
     */
    default java.util.random.RandomGenerator random() {
        return java.util.concurrent.ThreadLocalRandom.current();
    }
}
