package dev.lockstep.engine;

import dev.lockstep.Operation;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Wakers waiting for a condition of runtime-wide state (a task's outcome, a stop signal). Thread-safe; wakers
 * are woken in the order they registered, outside the monitor.
 */
final class WaitList {
    private final List<Waker> waiters = new ArrayList<>();

    synchronized void add(Waker waker) {
        for (Waker existing : waiters) {
            if (existing == waker) {
                return;
            }
        }
        waiters.add(waker);
    }

    synchronized void remove(Waker waker) {
        waiters.removeIf(existing -> existing == waker);
    }

    void wakeAll() {
        List<Waker> woken;
        synchronized (this) {
            woken = new ArrayList<>(waiters);
            waiters.clear();
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
