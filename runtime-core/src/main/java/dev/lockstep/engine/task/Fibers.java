package dev.lockstep.engine.task;

import dev.lockstep.AbortedException;
import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.TimeoutException;
import dev.lockstep.UnsupportedJdkException;
import dev.lockstep.engine.request.Registration;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;

/**
 * Fibers: virtual threads whose scheduler is a Lockstep worker, and the one {@code await} every blocking call
 * goes through.
 *
 * <p>The JDK has no public API for a virtual-thread scheduler yet: the builder comes from {@link JdkInternals},
 * whose self-test {@link #probe()} runs at start-up.
 */
public final class Fibers {
    /** The JVM flag the scheduler hook needs: {@link JdkInternals#REQUIRED_FLAG}. */
    public static final String REQUIRED_FLAG = JdkInternals.REQUIRED_FLAG;
    private static final ThreadLocal<Fiber> CURRENT = new ThreadLocal<>();
    /**
     * Set on a thread only while {@link #unstarted} builds a fiber on it: the JDK's thread constructor calls
     * inheritable thread-locals' {@code childValue} on the creating thread, and the simulator's leak watch asks
     * there whether the thread being made is a fiber ({@link #creatingFiber}). A flag, where a stack walk per
     * spawn cost about 2 % of a demo seed's CPU.
     */
    private static final ThreadLocal<Boolean> CREATING = new ThreadLocal<>();

    private Fibers() {
    }

    /**
     * Checks that fibers can be made on this JVM: {@link JdkInternals#checkFibers()}.
     *
     * @throws UnsupportedJdkException naming the member and the JDK version, if this JDK lacks the scheduler hook
     * @throws IllegalStateException naming the flag, if java.base does not open it
     */
    public static void probe() {
        JdkInternals.checkFibers();
    }

    /**
     * A fiber's thread, not started, from {@code builder}: {@link #creatingFiber} is true on the calling thread while
     * the thread is constructed.
     *
     * @param builder from {@link #builder}
     * @param name the thread's name
     * @param body what the thread runs
     * @return the unstarted thread
     */
    static Thread unstarted(Thread.Builder.OfVirtual builder, String name, Runnable body) {
        CREATING.set(Boolean.TRUE);
        try {
            return builder.name(name).unstarted(body);
        } finally {
            CREATING.remove();
        }
    }

    /**
     * Whether the calling thread is constructing a fiber's thread right now: for an inheritable thread-local's
     * {@code childValue}, which the JDK calls on the creating thread, to tell a fiber from any other new thread.
     *
     * @return true inside the engine's construction of a fiber's thread
     */
    public static boolean creatingFiber() {
        return CREATING.get() != null;
    }

    /**
     * A virtual-thread builder whose continuations run on {@code scheduler}.
     *
     * @param scheduler receives every continuation of the threads built
     * @return the builder
     */
    static Thread.Builder.OfVirtual builder(Executor scheduler) {
        return JdkInternals.virtualThreadBuilder(scheduler);
    }

    /**
     * The fiber running on the calling thread.
     *
     * @return the fiber, or null on a plain thread
     */
    public static Fiber current() {
        return CURRENT.get();
    }

    /**
     * The calling fiber's reusable registration, lent to the calling engine code ({@link Fiber#takeReusable});
     * null on a plain thread, or while a call of the fiber has it. End the loan with
     * {@link Registration#giveBack}.
     *
     * @return the lent registration, or null
     */
    public static Registration<Object> lendReusable() {
        Fiber fiber = CURRENT.get();
        return fiber == null ? null : fiber.takeReusable();
    }

    static void bind(Fiber fiber) {
        CURRENT.set(fiber);
    }

    /**
     * Waits for an operation: parks the current fiber (or, on a plain thread, the thread) until it is ready.
     * In a fiber, an abort closes the operation and throws {@link ClosedException}; an expired
     * {@code Clock.timeout} scope closes it and throws {@link TimeoutException}.
     *
     * <p>Interrupts, as {@link Operation#await()} documents them. In a fiber the wait is not ended by
     * {@code Thread.interrupt()}, as {@code Lock.lock()} is not: the status is cleared before each park (the JDK's
     * park returns at once while it is set, so the fiber would poll and park again without ever unmounting, and
     * its worker would never turn) and set again on the way out, whatever the outcome. On a plain thread an
     * interrupt, before or during the wait, ends it unless the result is ready: the operation is closed and
     * {@link AbortedException} is thrown with the status still set.
     *
     * @param operation the operation
     * @param <T> its value
     * @return its value
     * @throws AbortedException on a plain thread whose interrupt status is set while the result is not ready
     */
    public static <T> T await(Operation<T> operation) {
        Fiber fiber = CURRENT.get();
        if (fiber == null) {
            return dev.lockstep.spi.Awaiter.parkThread(operation);
        }
        boolean interrupted = false;
        try {
            if (operation instanceof Registration<T> registration && !fiber.isAborted()) {
                // Before the first poll, so that a request completed in place is taken with no waker installed: a
                // waker woken now would leave a permit behind, and the fiber's next park would return at once.
                registration.completeInPlace(fiber);
            }
            while (true) {
                fiber.checkAbort(operation);
                // A ready result wins over an expired timeout: the body finished in time for whoever awaits it.
                Poll<T> poll = operation.poll(fiber.waker());
                if (poll.isReady()) {
                    return poll.get();
                }
                fiber.checkAbort(operation);
                fiber.checkTimeouts(operation);
                // Cleared here, on the fiber's own thread, and set again in the finally below: an interrupt from
                // another thread that lands after this line unparks the fiber once (a wake-up like any spurious
                // one: the loop polls, finds nothing and parks again) and is kept for the way out the same way.
                if (Thread.interrupted()) {
                    interrupted = true;
                }
                LockSupport.park(operation);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits, from a fiber or a thread, until {@code ready} holds; woken through {@code list}. */
    public static void awaitUntil(java.util.function.BooleanSupplier ready, WaitList list) {
        await(new WaitList.Condition(ready, list));
    }
}
