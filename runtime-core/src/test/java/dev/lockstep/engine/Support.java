package dev.lockstep.engine;

import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Turns;
import dev.lockstep.Waker;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Worker;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Helpers shared by the engine tests; the calling code runs on a fiber unless a method says otherwise. */
public final class Support {
    private Support() {
    }

    /**
     * The worker critical section the calling thread is inside, for {@link dev.lockstep.Reentrant}: the current
     * worker while its state is borrowed, else null.
     *
     * @return a description, or null
     */
    public static String criticalSection() {
        Worker worker = Worker.current();
        return worker != null && worker.isBorrowed() ? "the borrow of " + worker : null;
    }

    public static <T> Registration<T> register(Request request) {
        return Worker.current().register(request);
    }

    /**
     * Lets the current worker run service turns (one per yield) until {@code condition} holds.
     *
     * @param what described in the failure
     * @param condition checked on the fiber between turns
     */
    public static void serviceUntil(String what, BooleanSupplier condition) {
        BoundedWait.yielding(what, condition);
    }

    /** Lets the worker run {@code turns} service turns. */
    public static void turns(int turns) {
        for (int i = 0; i < turns; i++) {
            Thread.yield();
        }
    }

    /**
     * Runs {@code body} on a plain platform thread while the calling fiber spins without yielding, so its
     * worker cannot service (the Java form of the seed's {@code poll_on_foreign_thread}, whose join blocks the
     * worker).
     *
     * @param body the work
     * @param <T> its value
     * @return its value
     */
    public static <T> T onForeignThreadBlockingWorker(Supplier<T> body) {
        AtomicReference<T> value = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().name("foreign").start(() -> {
            try {
                value.set(body.get());
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        BoundedWait.spinning("the foreign thread finished", () -> !thread.isAlive());
        Turns.rethrow(failure.get());
        return value.get();
    }

    /**
     * Polls on a plain thread while the owning worker cannot service.
     *
     * @param operation the operation
     * @param waker the waker
     * @param <T> its value
     * @return the poll
     */
    public static <T> Poll<T> pollOnForeignThread(Operation<T> operation, Waker waker) {
        return onForeignThreadBlockingWorker(() -> operation.poll(waker));
    }

    /**
     * Runs {@code body} on a plain platform thread and joins it; the calling fiber parks, so its worker keeps
     * servicing meanwhile.
     *
     * @param body the work
     * @param <T> its value
     * @return its value
     */
    public static <T> T onPlainThread(Supplier<T> body) {
        AtomicReference<T> value = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().name("plain").start(() -> {
            try {
                value.set(body.get());
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        try {
            if (!thread.join(java.time.Duration.ofSeconds(10))) {
                throw new AssertionError("plain thread did not finish within 10 s");
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        Turns.rethrow(failure.get());
        return value.get();
    }

    public static void onPlainThread(Runnable body) {
        onPlainThread(() -> {
            body.run();
            return null;
        });
    }

    /**
     * A plain thread started now (api's {@link Turns.Started}); join it from a fiber with
     * {@link #joinYielding}, so the worker keeps servicing while it ends.
     *
     * @param body the work
     * @return the started thread
     */
    public static Turns.Started startPlain(Runnable body) {
        return Turns.startPlain(body);
    }

    /**
     * Waits, yielding (so the worker keeps servicing), until {@code started} ended, then rethrows its failure.
     *
     * @param started a thread from {@link #startPlain}
     */
    public static void joinYielding(Turns.Started started) {
        BoundedWait.yielding("the helper thread finished", () -> started.state() == Thread.State.TERMINATED);
        started.join();
    }
}
