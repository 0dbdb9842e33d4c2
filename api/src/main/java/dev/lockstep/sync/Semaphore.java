package dev.lockstep.sync;

import dev.lockstep.Operation;
import java.util.ArrayDeque;

/**
 * A counting semaphore whose waiting goes through Lockstep: {@link #acquire(long)} is an {@link Operation}, so a
 * fiber awaits it like any I/O (aborts and {@code Clock.timeout} apply), races it with {@link Select}, and in the
 * simulator waits on the seeded scheduler instead of a JDK lock (which would make a run nondeterministic).
 *
 * <p><b>Order.</b> Strictly first come, first served: an acquire that cannot be granted yet holds up later ones,
 * even smaller ones that would fit, so no waiter starves and the simulator's order of grants is decided by the
 * order of the calls alone.
 *
 * <p><b>Cancellation.</b> Closing a pending acquire leaves the line. Closing an acquire that was granted but whose
 * lease was never observed gives its permits back: a lease is never lost with an unobserved result.
 *
 * <p><b>Threads.</b> Any fiber of any worker, and plain threads, may acquire and release; the state is guarded by
 * one lock held only for queue updates (see {@link Waiting}).
 */
public final class Semaphore {
    final FiberSafeLock lock = new FiberSafeLock();
    private final long total;
    private long available;
    private final ArrayDeque<Acquire> line = new ArrayDeque<>();

    /**
     * A semaphore with {@code permits} permits, all available.
     *
     * @param permits the permits, at least 1
     * @throws IllegalArgumentException naming the value if it is less than 1
     */
    public Semaphore(long permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("a semaphore needs at least 1 permit, was " + permits);
        }
        this.total = permits;
        this.available = permits;
    }

    /**
     * Waits for {@code permits} permits.
     *
     * @param permits how many, from 1 to the semaphore's total
     * @return an operation whose value is the {@link Lease} of the permits
     * @throws IllegalArgumentException naming the value if it is less than 1 or more than the total, which could
     *                                  never be granted
     */
    public Operation<Lease> acquire(long permits) {
        check(permits);
        Acquire acquire = new Acquire(permits);
        Wakes wakes = new Wakes();
        lock.lock();
        try {
            line.addLast(acquire);
            grantLocked(wakes);
        } finally {
            lock.unlock();
        }
        wakes.run();
        return acquire;
    }

    /**
     * Waits for one permit.
     *
     * @return an operation whose value is the {@link Lease}
     */
    public Operation<Lease> acquire() {
        return acquire(1);
    }

    /**
     * Takes {@code permits} permits if they are available now and nobody is waiting ahead.
     *
     * @param permits how many, from 1 to the total
     * @return the lease, or null
     * @throws IllegalArgumentException naming the value if it is out of range
     */
    public Lease tryAcquire(long permits) {
        check(permits);
        lock.lock();
        try {
            if (line.isEmpty() && available >= permits) {
                available -= permits;
                return new Lease(this, permits);
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The permits free right now.
     *
     * @return from 0 to the total
     */
    public long available() {
        lock.lock();
        try {
            return available;
        } finally {
            lock.unlock();
        }
    }

    private void check(long permits) {
        if (permits < 1 || permits > total) {
            throw new IllegalArgumentException("permits must be between 1 and " + total + ", was " + permits);
        }
    }

    void giveBack(Lease lease) {
        Wakes wakes = new Wakes();
        lock.lock();
        try {
            if (lease.releaseLocked()) {
                available += lease.permits();
                assert available <= total : available + " of " + total + " permits available after a give-back";
                grantLocked(wakes);
            }
        } finally {
            lock.unlock();
        }
        wakes.run();
    }

    private void grantLocked(Wakes wakes) {
        while (!line.isEmpty() && line.peekFirst().permits <= available) {
            Acquire next = line.pollFirst();
            available -= next.permits;
            wakes.wake(next.completeLocked(new Lease(this, next.permits), null));
        }
    }

    private final class Acquire extends Waiting<Lease> {
        private final long permits;

        Acquire(long permits) {
            super(Semaphore.this.lock);
            this.permits = permits;
        }

        @Override
        void cancelLocked(Wakes wakes) {
            line.remove(this);
            grantLocked(wakes); // it may have been holding up smaller acquires behind it
        }

        @Override
        void dropLocked(Lease won, Wakes wakes) {
            if (won.releaseLocked()) {
                available += won.permits();
                assert available <= total : available + " of " + total + " permits available after a drop";
                grantLocked(wakes);
            }
        }

        @Override
        String describe() {
            return "the acquire of " + permits + " permit" + (permits == 1 ? "" : "s");
        }
    }
}
