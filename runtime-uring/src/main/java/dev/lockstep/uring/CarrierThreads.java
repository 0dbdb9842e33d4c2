package dev.lockstep.uring;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Which platform thread the calling code runs on: what a single-issuer ring asks of every caller, since the kernel
 * binds the ring to one kernel task, and a virtual thread mounted on the owner thread is that task too (a worker's
 * fibers run on its thread, between its service turns, never at the same time as one).
 *
 * <p>{@code Thread.currentCarrierThread()} is package-private in the JDK (and a JIT intrinsic); it is reached
 * through {@code java.lang}, which every Lockstep JVM opens for the fiber scheduler anyway
 * ({@code --add-opens java.base/java.lang=ALL-UNNAMED}). Where it cannot be reached, only the platform thread itself
 * counts as running on it.
 */
final class CarrierThreads {
    private static final MethodHandle CURRENT_CARRIER = currentCarrierHandle();

    private CarrierThreads() {
    }

    private static MethodHandle currentCarrierHandle() {
        try {
            return MethodHandles.privateLookupIn(Thread.class, MethodHandles.lookup())
                    .findStatic(Thread.class, "currentCarrierThread", MethodType.methodType(Thread.class));
        } catch (ReflectiveOperationException | RuntimeException unavailable) {
            return null;
        }
    }

    /**
     * Whether the calling code runs on {@code platform}: it is that thread, or a virtual thread mounted on it.
     *
     * @param platform a platform thread
     * @return true if the caller runs on it now
     */
    static boolean runsOn(Thread platform) {
        Thread current = Thread.currentThread();
        if (current == platform) {
            return true;
        }
        if (!current.isVirtual() || CURRENT_CARRIER == null) {
            return false;
        }
        try {
            return (Thread) CURRENT_CARRIER.invokeExact() == platform;
        } catch (Throwable unexpected) {
            return false;
        }
    }
}
