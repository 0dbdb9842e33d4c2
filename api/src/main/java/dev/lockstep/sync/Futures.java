package dev.lockstep.sync;

import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Adapters between Lockstep operations and {@link CompletableFuture}, for code that speaks futures.
 *
 * <p><b>Determinism.</b> Both directions keep a simulated run deterministic as long as the futures are completed
 * by Lockstep tasks (or are complete already): then every completion, wake-up and dependent stage happens on the
 * simulator's thread in the seed's order. A future completed by a thread the simulator does not own (an executor,
 * {@code CompletableFuture.supplyAsync}, the common pool) is outside the seed: such waits are what the simulator
 * reports as determinism leaks. Never call {@code join()} or {@code get()} on a future inside a task: await
 * {@link #fromFuture} instead.
 */
public final class Futures {
    private Futures() {
    }

    /**
     * A future completed with the operation's outcome. The operation is polled now and again each time it wakes
     * the adapter; the future's dependent stages run on the thread that completes it (in a task, the worker's
     * fiber or service turn), so keep them short and non-blocking. Cancelling the future closes the operation.
     *
     * @param operation the operation, not null
     * @param <T> its value
     * @return a future of its value; a failure completes it exceptionally with the operation's exception
     */
    public static <T> CompletableFuture<T> toFuture(Operation<T> operation) {
        Objects.requireNonNull(operation, "operation");
        CompletableFuture<T> future = new CompletableFuture<>();
        Waker[] self = new Waker[1];
        self[0] = new Waker() {
            @Override
            public void wake() {
                pollInto(operation, future, self[0]);
            }

            @Override
            public boolean willWake(Waker other) {
                return other == this;
            }
        };
        future.whenComplete((value, failure) -> {
            if (failure instanceof CancellationException) {
                operation.close();
            }
        });
        pollInto(operation, future, self[0]);
        return future;
    }

    private static <T> void pollInto(Operation<T> operation, CompletableFuture<T> future, Waker waker) {
        if (future.isDone()) {
            return;
        }
        Poll<T> poll;
        try {
            poll = operation.poll(waker);
        } catch (RuntimeException failure) {
            future.completeExceptionally(failure);
            return;
        }
        if (poll.isReady()) {
            try {
                future.complete(poll.get());
            } catch (RuntimeException failure) {
                future.completeExceptionally(failure);
            }
        }
    }

    /**
     * An operation that completes when the future does. Closing the operation stops only the waiting; the
     * future is not cancelled.
     *
     * @param future the future, not null
     * @param <T> its value
     * @return an operation with the future's value; an exceptional completion fails it with the future's
     *     exception if that is unchecked, else with a {@link CompletionException} whose cause it is; a cancelled
     *     future fails it with {@link ClosedException}
     */
    public static <T> Operation<T> fromFuture(CompletableFuture<T> future) {
        Objects.requireNonNull(future, "future");
        OneShot<T> result = new OneShot<>();
        future.whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            } else {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                if (cause instanceof CancellationException) {
                    result.fail(new ClosedException("the future was cancelled", cause));
                } else if (cause instanceof RuntimeException unchecked) {
                    result.fail(unchecked);
                } else {
                    result.fail(new CompletionException(cause));
                }
            }
        });
        return result.get();
    }
}
