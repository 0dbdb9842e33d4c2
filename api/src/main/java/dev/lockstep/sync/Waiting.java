package dev.lockstep.sync;

import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;

/**
 * One party waiting on a primitive of this package: an {@link Operation} whose result the primitive decides.
 *
 * <p><b>Threads.</b> Every field is guarded by the primitive's lock ({@link #lock}), which is held only for a
 * few field updates and queue operations, never across a park or a user callback: {@link Waker#retain()} runs
 * before the lock is taken, {@code wake} and {@code release} after it is let go (collected in {@link Wakes}).
 * The waker is stored under the lock by {@link #poll} and taken out under it by {@link #completeLocked}; the
 * one who takes it wakes it. So a completion that happens between a poll's check and its install finds the
 * installed waker (the install re-checks the state under the lock), and no wake-up is lost. In the simulator
 * the lock is never contended (one thread); on runtime-uring a fiber that finds it contended yields for a few
 * instructions, outside any worker's critical section. It is a {@link FiberSafeLock}, not a monitor, because a
 * worker thread takes it too (a {@link Futures#toFuture} waker polls on the thread that wakes it), and a fiber
 * queued on a monitor its own carrier then contends would wedge both.
 *
 * <p><b>Life.</b> Pending → done (the primitive completed it) → observed (a poll returned the result), or closed
 * from pending (the primitive forgets it: {@link #cancelLocked}) or from done-but-unobserved (what it won goes
 * back: {@link #dropLocked}, so a lock or a value is never lost with an unobserved result).
 *
 * @param <T> the result
 */
abstract class Waiting<T> implements Operation<T> {
    private static final int PENDING = 0;
    private static final int DONE = 1;
    private static final int OBSERVED = 2;
    private static final int CLOSED = 3;

    /** The primitive's lock. */
    final FiberSafeLock lock;
    private int state = PENDING;
    private T value;
    private RuntimeException failure;
    private Waker stored;
    /** The thread whose poll stored {@link #stored}: its own close releases it, anyone else's wakes it. */
    private Thread storedBy;

    Waiting(FiberSafeLock lock) {
        this.lock = lock;
    }

    /** Leaves the primitive's queue: the operation was closed while pending. Called under the lock. */
    abstract void cancelLocked(Wakes wakes);

    /**
     * Gives back what a completed, never observed result holds (a permit, a value). Called under the lock.
     *
     * @param won the value the operation was completed with
     * @param wakes parties the give-back completes
     */
    void dropLocked(T won, Wakes wakes) {
    }

    /** What this operation is, for messages. */
    abstract String describe();

    final boolean isPendingLocked() {
        return state == PENDING;
    }

    /**
     * Completes the operation; the caller wakes what it returns once the lock is let go.
     *
     * @return the stored waker, or null
     */
    final Waker completeLocked(T result, RuntimeException error) {
        assert lock.isHeldByCurrentThread() : describe() + " completed without its primitive's lock";
        if (state != PENDING) {
            throw new IllegalStateException(describe() + " completed twice");
        }
        state = DONE;
        value = result;
        failure = error;
        Waker waker = stored;
        stored = null;
        storedBy = null;
        return waker;
    }

    @Override
    public final Poll<T> poll(Waker waker) {
        java.util.Objects.requireNonNull(waker, "waker");
        Waker retained = null;
        while (true) {
            Waker unused = null;
            Poll<T> outcome = null;
            lock.lock();
            try {
                if (state == DONE) {
                    state = OBSERVED;
                    outcome = failure == null ? Poll.ready(value) : Poll.failed(failure);
                    value = null;
                    failure = null;
                    unused = retained;
                } else if (state != PENDING) {
                    outcome = Poll.failed(new ClosedException(describe() + " was already "
                            + (state == OBSERVED ? "observed" : "closed")));
                    unused = retained;
                } else if (stored != null && stored.willWake(waker)) {
                    outcome = Poll.pending();
                    unused = retained;
                } else if (retained != null) {
                    unused = stored;
                    stored = retained;
                    storedBy = Thread.currentThread();
                    outcome = Poll.pending();
                }
            } finally {
                lock.unlock();
            }
            if (outcome != null) {
                if (unused != null) {
                    unused.release();
                }
                return outcome;
            }
            // A new waker: retain it outside the lock (a user callback), then install it on the next pass,
            // which re-checks the state under the lock.
            retained = waker.retain();
        }
    }

    @Override
    public final T await() {
        return Awaiting.await(this);
    }

    @Override
    public final void close() {
        Wakes wakes = new Wakes();
        lock.lock();
        try {
            if (state == PENDING) {
                state = CLOSED;
                // Close means close: a party awaiting from another thread is woken and reads ClosedException;
                // the closer's own waker (a select closing its losers, say) is only released.
                if (storedBy == Thread.currentThread()) {
                    wakes.release(stored);
                } else {
                    wakes.wake(stored);
                }
                stored = null;
                storedBy = null;
                cancelLocked(wakes);
            } else if (state == DONE) {
                state = CLOSED;
                T won = value;
                value = null;
                failure = null;
                if (won != null) {
                    dropLocked(won, wakes);
                }
            }
        } finally {
            lock.unlock();
        }
        wakes.run();
    }
}
