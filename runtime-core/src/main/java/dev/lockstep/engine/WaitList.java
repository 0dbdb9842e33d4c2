package dev.lockstep.engine;

import dev.lockstep.sync.FiberSafeLock;
import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Wakers waiting for a condition of runtime-wide state (a task's outcome, a stop signal). Thread-safe; wakers
 * are woken in the order they registered, outside the lock (a {@link FiberSafeLock}: fibers and worker threads
 * both add and wake, and a fiber must never queue on a lock its carrier may take).
 */
final class WaitList {
    private final FiberSafeLock lock = new FiberSafeLock();
    /** Guarded by {@link #lock}. */
    private final List<Waker> waiters = new ArrayList<>();

    void add(Waker waker) {
        lock.lock();
        try {
            for (Waker existing : waiters) {
                if (existing == waker) {
                    return;
                }
            }
            waiters.add(waker);
        } finally {
            lock.unlock();
        }
    }

    void remove(Waker waker) {
        lock.lock();
        try {
            waiters.removeIf(existing -> existing == waker);
        } finally {
            lock.unlock();
        }
    }

    void wakeAll() {
        List<Waker> woken;
        lock.lock();
        try {
            woken = new ArrayList<>(waiters);
            waiters.clear();
        } finally {
            lock.unlock();
        }
        for (Waker waker : woken) {
            waker.wake();
        }
    }

    /** An operation that is ready once {@code ready} holds. */
    static final class Condition implements Operation<Void> {
        private final BooleanSupplier ready;
        private final WaitList list;
        private Waker registered;

        Condition(BooleanSupplier ready, WaitList list) {
            this.ready = ready;
            this.list = list;
        }

        @Override
        public Poll<Void> poll(Waker waker) {
            if (ready.getAsBoolean()) {
                close();
                return Poll.ready(null);
            }
            if (registered != waker) {
                if (registered != null) {
                    list.remove(registered);
                }
                registered = waker;
            }
            list.add(waker);
            // Re-check: the condition may have become true before the waker was listed.
            if (ready.getAsBoolean()) {
                close();
                return Poll.ready(null);
            }
            return Poll.pending();
        }

        @Override
        public Void await() {
            return Fibers.await(this);
        }

        @Override
        public void close() {
            if (registered != null) {
                list.remove(registered);
                registered = null;
            }
        }
    }
}
