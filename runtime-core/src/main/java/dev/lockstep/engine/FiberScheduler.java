package dev.lockstep.engine;

/**
 * Decides when fibers run: the seam between the shared engine and a runtime's loop. runtime-uring runs each
 * worker's fibers on that worker's thread, in arrival order per source (wakes from the worker's own thread, and
 * wakes from other threads); the simulator picks the next one with its seed.
 */
public interface FiberScheduler {
    /**
     * A continuation of a fiber whose home is {@code worker} became runnable. Called from whichever thread
     * unparked it; the scheduler must run it on a thread that carries {@code worker}.
     *
     * @param worker the fiber's home
     * @param fiber the fiber the continuation belongs to
     * @param continuation what to run
     */
    void schedule(Worker worker, Fiber fiber, Runnable continuation);
}
