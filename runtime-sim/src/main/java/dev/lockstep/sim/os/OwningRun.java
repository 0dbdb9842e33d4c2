package dev.lockstep.sim.os;

/**
 * The run a {@link SimKernel} belongs to, as the kernel sees it: the one thing the kernel asks of it is whether the
 * calling thread may touch simulation state.
 *
 * <p>Implemented by the simulator's run loop; called on whatever thread reaches the kernel.
 */
public interface OwningRun {
    /**
     * Returns if the calling thread is the run's (or the run is not running); otherwise records the foreign call as
     * a leak of the run and throws.
     *
     * @param what the call being made, named in the message
     * @throws IllegalStateException if the run is running and the calling thread is not one of its tasks
     */
    void checkConfined(String what);
}
