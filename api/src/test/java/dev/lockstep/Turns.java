package dev.lockstep;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Letting a worker run, and involving other threads, the same way on both runtimes: the test fixture the
 * conformance suite and the runtimes' white-box cases share. It uses the public API alone, so a case of either
 * kind reads the same.
 *
 * <p>No assertion here depends on wall-clock time: waits are bounded by a number of turns, and the suite's
 * JUnit default timeout is only a guard against a hang. A turn is a yield of the calling fiber — on both
 * runtimes the worker services (mailbox, timers, staging, completions) before the fiber runs again — and every
 * eighth turn a short {@code ctx.sleep}, so the simulator's clock can reach a completion that has latency
 * (the simulator jumps time only when no fiber is runnable, and a yielding fiber always is).
 */
public final class Turns {
    /** Turns a wait may take before it fails: far more than any case needs. */
    public static final int LIMIT = 400_000;
    private static final Duration NAP = Duration.ofNanos(50_000);

    private Turns() {
    }

    /**
     * The seed's {@code reschedule().await}: lets the worker run one service turn before the fiber continues.
     */
    public static void reschedule() {
        requireFiber("reschedule");
        Thread.yield();
    }

    /**
     * Lets the worker run until {@code condition} holds.
     *
     * @param clock the calling task's clock
     * @param what described in the failure
     * @param condition checked between turns, on the fiber
     */
    public static void until(Clock clock, String what, BooleanSupplier condition) {
        requireFiber("until");
        for (int turn = 0; !condition.getAsBoolean(); turn++) {
            if (turn >= LIMIT) {
                throw new AssertionError("did not happen within " + LIMIT + " worker turns: " + what);
            }
            if ((turn & 7) == 7) {
                clock.sleep(NAP);
            } else {
                Thread.yield();
            }
        }
    }

    /**
     * The seed's {@code drained().await}: services the worker until every request admitted to it retired.
     *
     * @param clock the calling task's clock
     * @param admitted reads the requests admitted and not yet retired, on the fiber
     */
    public static void drained(Clock clock, IntSupplier admitted) {
        until(clock, "every request admitted retired (" + admitted.getAsInt() + " left)",
                () -> admitted.getAsInt() == 0);
    }

    /**
     * The seed's {@code poll_on_foreign_thread}: polls on a new platform thread while the calling fiber spins
     * without yielding, so the owning worker cannot service the hand-off meanwhile.
     *
     * @param operation the operation
     * @param waker the waker for the foreign poll
     * @param <T> its value
     * @return the foreign poll's outcome
     */
    public static <T> Poll<T> pollOnForeignThread(Operation<T> operation, Waker waker) {
        return onForeignThreadBlockingWorker(() -> operation.poll(waker));
    }

    /**
     * Runs {@code body} on a new platform thread while the calling fiber spins without yielding (its worker
     * cannot service): the seed's {@code thread::spawn(..).join()} from inside a task.
     *
     * @param body the work
     * @param <T> its value
     * @return its value; its exception is rethrown
     */
    public static <T> T onForeignThreadBlockingWorker(Supplier<T> body) {
        AtomicReference<T> value = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().daemon().name("conformance-foreign").start(() -> {
            try {
                value.set(body.get());
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        while (thread.isAlive()) {
            Thread.onSpinWait();
        }
        rethrow(failure.get());
        return value.get();
    }

    /**
     * Runs {@code body} on a new platform thread while the calling fiber lets its worker run, and returns its
     * value: the seed's hand-off to {@code thread::spawn(block_on(..))} awaited through a channel.
     *
     * @param clock the calling task's clock
     * @param body the work
     * @param <T> its value
     * @return its value; its exception is rethrown
     */
    public static <T> T onPlainThread(Clock clock, Supplier<T> body) {
        AtomicReference<T> value = new AtomicReference<>();
        Started thread = startPlain(() -> value.set(body.get()));
        thread.join(clock);
        return value.get();
    }

    /**
     * A platform thread started now; {@link Started#join} waits for it without blocking the worker.
     *
     * @param body the work
     * @return the thread
     */
    public static Started startPlain(Runnable body) {
        return new Started(body);
    }

    /** A platform thread whose failure {@link #join} rethrows. */
    public static final class Started {
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final Thread thread;

        Started(Runnable body) {
            thread = Thread.ofPlatform().daemon().name("conformance-plain").start(() -> {
                try {
                    body.run();
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
        }

        /**
         * From a fiber: lets the worker run until the thread ended, then rethrows its failure.
         *
         * @param clock the calling task's clock
         */
        public void join(Clock clock) {
            until(clock, "thread " + thread.getName() + " finished", () -> !thread.isAlive());
            rethrow(failure.get());
        }

        /**
         * The thread's state, to wait (with {@link Turns#until}) until it parks.
         *
         * @return its state now
         */
        public Thread.State state() {
            return thread.getState();
        }

        /** Interrupts the thread. */
        public void interrupt() {
            thread.interrupt();
        }

        /** From a plain thread (the test's): joins and rethrows the thread's failure. */
        public void join() {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            rethrow(failure.get());
        }
    }

    /**
     * Rethrows what a helper thread threw: an unchecked exception or error as it is, anything else inside an
     * {@link AssertionError}; nothing for null.
     *
     * @param failure the thread's failure, or null
     */
    public static void rethrow(Throwable failure) {
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        if (failure != null) {
            throw new AssertionError(failure);
        }
    }

    /** A fiber of either runtime is a virtual thread; a plain thread would spin here without letting one run. */
    private static void requireFiber(String what) {
        if (!Thread.currentThread().isVirtual()) {
            throw new IllegalStateException(what + " must run on a fiber of the runtime");
        }
    }
}
