package dev.lockstep.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The engine tests' waits for a condition another thread or fiber brings about: polled until it holds, and failed
 * with an {@link AssertionError} naming what was awaited once {@value #LIMIT_SECONDS} s of real time have passed,
 * so a test whose condition never comes fails instead of hanging. How the waiter lets the others run between polls
 * depends on where it runs, hence one method per kind of waiter. The limit bounds a wait, it asserts no speed.
 */
public final class BoundedWait {
    static final int LIMIT_SECONDS = 10;

    private BoundedWait() {
    }

    /**
     * From a fiber: yields between polls, so its worker runs its other fibers and a service turn each time.
     *
     * @param what what is awaited, named in the failure
     * @param condition checked on the calling fiber
     */
    static void yielding(String what, BooleanSupplier condition) {
        until(what, condition, Thread::yield);
    }

    /**
     * From a fiber that must keep its worker from servicing: spins without yielding, so its worker runs nothing
     * else while it waits.
     *
     * @param what what is awaited, named in the failure
     * @param condition checked on the calling fiber
     */
    public static void spinning(String what, BooleanSupplier condition) {
        until(what, condition, Thread::onSpinWait);
    }

    /**
     * From a plain thread: parks a millisecond between polls, leaving the cores to the workers.
     *
     * @param what what is awaited, named in the failure
     * @param condition checked on the calling thread
     */
    public static void parking(String what, BooleanSupplier condition) {
        until(what, condition, () -> LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)));
    }

    private static void until(String what, BooleanSupplier condition, Runnable pause) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + LIMIT_SECONDS + " s: " + what);
            }
            pause.run();
        }
    }
}
