package dev.lockstep.sync;

import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import java.util.List;
import java.util.Objects;

/**
 * Races operations: the first to complete wins, every other one is closed. A server races {@code accept()}
 * against its stop signal, a client a receive against a sleeper:
 *
 * <pre>{@code
 * try (Signal stop = ctx.stopped()) {
 *     while (true) {
 *         Selected<Object> next = Select.<Object>first(listener.accept(), stop.asOperation()).await();
 *         if (next.index() == 1) break;                 // stopped
 *         serve(ctx, (Connection) next.value());
 *     }
 * }
 * }</pre>
 *
 * <p><b>Who wins.</b> Each poll of the race polls the operations in list order and takes the first that is
 * ready, so when several are ready at once the earliest in the list wins; in the simulator which are ready is
 * decided by the seed, so the winner replays. A winner that failed makes the race fail with its failure.
 *
 * <p><b>The losers</b> are closed as soon as there is a winner, with what closing means for each (a receive or an
 * accept is cancelled; a result one of them had already won is closed by the runtime, so nothing leaks). Closing
 * the race closes every operation in it.
 *
 * <p><b>Threads.</b> Like any operation the race may be polled and closed from any thread; polls of one race are
 * serialized by its monitor, which is held while the operations are polled and the losers closed (neither parks;
 * a loser's close may release a stored copy of the poller's waker). On runtime-uring a fiber polling an operation
 * may yield for a {@link FiberSafeLock} another thread holds, with this monitor held; so a race that tasks poll
 * must not also be polled by a waker on a worker thread (a {@link Futures#toFuture} of the same race): that
 * thread could wait for the monitor while the fiber holding it waits for that thread.
 */
public final class Select<T> implements Operation<Selected<T>> {
    private final List<? extends Operation<? extends T>> operations;
    private boolean finished;

    private Select(List<? extends Operation<? extends T>> operations) {
        this.operations = operations;
    }

    /**
     * A race over the operations, in priority order.
     *
     * @param operations at least one, none null
     * @param <T> a common type of their values
     * @return the race; its value says which won
     * @throws IllegalArgumentException if the list is empty
     */
    public static <T> Select<T> first(List<? extends Operation<? extends T>> operations) {
        Objects.requireNonNull(operations, "operations");
        if (operations.isEmpty()) {
            throw new IllegalArgumentException("a race needs at least one operation, was given none");
        }
        for (int i = 0; i < operations.size(); i++) {
            Objects.requireNonNull(operations.get(i), "operation " + i);
        }
        return new Select<>(List.copyOf(operations));
    }

    /**
     * A race over the operations, in priority order.
     *
     * @param operations at least one, none null
     * @param <T> a common type of their values
     * @return the race
     */
    @SafeVarargs
    public static <T> Select<T> first(Operation<? extends T>... operations) {
        return first(List.of(operations));
    }

    /**
     * A race of two operations of different types, its winner typed ({@link Either}): the commonest event loop,
     * a receive raced against a timer, without a type witness or a cast. It is a {@link #first} of the two, with
     * the same rules: the first wins when both are ready, the loser is closed, closing the race closes both.
     *
     * @param first the operation that wins a tie
     * @param second the other
     * @param <A> the first one's value
     * @param <B> the second one's value
     * @return the race
     * @throws NullPointerException naming the operation that is null
     */
    public static <A, B> Operation<Either<A, B>> either(Operation<? extends A> first, Operation<? extends B> second) {
        Objects.requireNonNull(first, "first");
        Objects.requireNonNull(second, "second");
        return new TwoWay<>(Select.<Object>first(first, second));
    }

    /** {@link #either}: a race of two whose value is mapped to the side that won. */
    private static final class TwoWay<A, B> implements Operation<Either<A, B>> {
        private final Select<Object> race;

        TwoWay(Select<Object> race) {
            this.race = race;
        }

        @Override
        public Poll<Either<A, B>> poll(Waker waker) {
            Poll<Selected<Object>> poll = race.poll(waker);
            if (!poll.isReady()) {
                return Poll.pending();
            }
            try {
                return Poll.ready(sideOf(poll.get()));
            } catch (RuntimeException failure) {
                return Poll.failed(failure);
            }
        }

        @SuppressWarnings("unchecked")
        private Either<A, B> sideOf(Selected<Object> won) {
            return won.index() == 0 ? new Either.First<>((A) won.value()) : new Either.Second<>((B) won.value());
        }

        @Override
        public Either<A, B> await() {
            return Awaiting.await(this);
        }

        @Override
        public void close() {
            race.close();
        }
    }

    @Override
    public synchronized Poll<Selected<T>> poll(Waker waker) {
        Objects.requireNonNull(waker, "waker");
        if (finished) {
            return Poll.failed(new dev.lockstep.ClosedException("the race was already observed or closed"));
        }
        for (int index = 0; index < operations.size(); index++) {
            Poll<? extends T> poll = operations.get(index).poll(waker);
            if (poll.isReady()) {
                finished = true;
                closeAllBut(index);
                try {
                    return Poll.ready(new Selected<>(index, poll.get()));
                } catch (RuntimeException failure) {
                    return Poll.failed(failure);
                }
            }
        }
        return Poll.pending();
    }

    @Override
    public Selected<T> await() {
        return Awaiting.await(this);
    }

    @Override
    public void close() {
        synchronized (this) {
            finished = true;
        }
        closeAllBut(-1);
    }

    private void closeAllBut(int winner) {
        for (int index = 0; index < operations.size(); index++) {
            if (index != winner) {
                operations.get(index).close();
            }
        }
    }
}
