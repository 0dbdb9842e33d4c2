package dev.lockstep.uring;

import dev.lockstep.engine.task.JdkInternals;

/**
 * Which platform thread the calling code runs on: what a single-issuer ring asks of every caller, since the kernel
 * binds the ring to one kernel task, and a virtual thread mounted on the owner thread is that task too (a worker's
 * fibers run on its thread, between its service turns, never at the same time as one).
 *
 * <p>A virtual thread's carrier comes from {@link JdkInternals#currentCarrierThread()}, the JDK's package-private
 * {@code Thread.currentCarrierThread()}. Where this JDK does not give it, only the platform thread itself counts as
 * running on it.
 */
final class CarrierThreads {
    private CarrierThreads() {
    }

    /**
     * Whether the calling code runs on {@code platform}: it is that thread, or a virtual thread mounted on it.
     *
     * @param platform a platform thread
     * @return true if the caller runs on it now
     */
    static boolean runsOn(Thread platform) {
        return Thread.currentThread() == platform || JdkInternals.currentCarrierThread() == platform;
    }
}
