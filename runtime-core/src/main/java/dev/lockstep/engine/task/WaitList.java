package dev.lockstep.engine.task;

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
 *
 * <p>The list keeps {@link Waker}'s contract: it stores what {@link Waker#retain()} returns and consumes every
 * stored copy exactly once, by {@link #wakeAll} or by {@link #remove} (which releases it). {@code retain} and
 * {@code release} run outside the lock. Each operation waiting here holds its own copy ({@link #add}), so closing
 * one never takes away another's registration, even when both were polled with equivalent wakers; an operation
 * that is itself the list's only user and may be polled by several parties (a task handle's direct polls) lists
 * one copy per party instead ({@link #addUnlessEquivalent}).
 */
public final class WaitList {
    private final FiberSafeLock lock;
    /** Guarded by {@link #lock}; null until the first waker is listed, as most lists never hold one. */
    private List<Waker> waiters;

    /** A list with a lock of its own. */
    public WaitList() {
        this(new FiberSafeLock());
    }

    /**
     * A list guarded by {@code lock}, which its owner may share between its lists: each section under it is a
     * few field writes of one list, never a second lock or a wake-up, so sharing it nests nothing.
     *
     * @param lock the lock
     */
    WaitList(FiberSafeLock lock) {
        this.lock = lock;
    }

    /**
     * Lists a retained copy of {@code waker} for one registration.
     *
     * @param waker the poller's waker
     * @return the listed copy, to {@link #remove} when the registration ends
     */
    public Waker add(Waker waker) {
        Waker copy = waker.retain();
        lock.lock();
        try {
            listed().add(copy);
        } finally {
            lock.unlock();
        }
        return copy;
    }

    /**
     * Lists {@code waker} unless an equivalent copy ({@link Waker#willWake}) is listed already: for a list every copy
     * of which belongs to one operation (see the class doc).
     *
     * @param waker the poller's waker
     * @return the copy listed for it, new or already there
     */
    public Waker addUnlessEquivalent(Waker waker) {
        Waker listed = listedFor(waker);
        if (listed != null) {
            return listed;
        }
        Waker copy = waker.retain();
        lock.lock();
        try {
            listed = equivalent(waker);
            if (listed == null) {
                listed().add(copy);
                return copy;
            }
        } finally {
            lock.unlock();
        }
        copy.release(); // an equivalent copy was listed meanwhile by another poller
        return listed;
    }

    /** Whether {@code copy} is still listed: neither woken nor removed. */
    public boolean isListed(Waker copy) {
        lock.lock();
        try {
            if (waiters == null) {
                return false;
            }
            for (Waker existing : waiters) {
                if (existing == copy) {
                    return true;
                }
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    private Waker listedFor(Waker waker) {
        lock.lock();
        try {
            return equivalent(waker);
        } finally {
            lock.unlock();
        }
    }

    /** The listed copy equivalent to {@code waker}, or null; under the lock. */
    private Waker equivalent(Waker waker) {
        if (waiters == null) {
            return null;
        }
        for (Waker existing : waiters) {
            if (existing == waker || existing.willWake(waker)) {
                return existing;
            }
        }
        return null;
    }

    /**
     * Takes a copy {@link #add} returned off the list and releases it, unless {@link #wakeAll} took it first (then
     * that wakes it).
     *
     * @param copy the listed copy
     * @return whether it was still listed
     */
    public boolean remove(Waker copy) {
        boolean removed;
        lock.lock();
        try {
            removed = waiters != null && waiters.removeIf(existing -> existing == copy);
        } finally {
            lock.unlock();
        }
        if (removed) {
            copy.release();
        }
        return removed;
    }

    public void wakeAll() {
        List<Waker> woken;
        lock.lock();
        try {
            woken = waiters;
            waiters = null;
        } finally {
            lock.unlock();
        }
        if (woken != null) {
            for (Waker waker : woken) {
                waker.wake();
            }
        }
    }

    /** The list, made at its first waker; under the lock. */
    private List<Waker> listed() {
        if (waiters == null) {
            waiters = new ArrayList<>(2);
        }
        return waiters;
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
            Waker current = registered;
            // Polled again by the same party while its copy waits: keep it (an equivalent waker is not retained
            // twice). Otherwise (first poll, the copy was woken, or another party polls) list a copy of this waker
            // and release the earlier one if it is still listed.
            if (current == null || !current.willWake(waker) || !list.isListed(current)) {
                registered = list.add(waker);
                if (current != null) {
                    list.remove(current);
                }
            }
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
