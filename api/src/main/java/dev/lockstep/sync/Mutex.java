package dev.lockstep.sync;

import dev.lockstep.Operation;

/**
 * Mutual exclusion whose waiting goes through Lockstep, for tasks that must hold a lock across an await (a
 * {@code synchronized} block or a JDK lock held across an await blocks a worker and makes a simulated run
 * nondeterministic). First come, first served; a pending {@link #lock()} can be closed, raced and timed out like
 * any operation.
 *
 * <pre>{@code
 * try (Lease held = mutex.lock().await()) {
 *     log.append(entry);          // may await I/O while holding the mutex
 * }
 * }</pre>
 *
 * <p>A semaphore of one permit; see {@link Semaphore} for order, cancellation and threads.
 */
public final class Mutex {
    private final Semaphore permit = new Semaphore(1);

    /** An unlocked mutex. */
    public Mutex() {
    }

    /**
     * Waits for the mutex.
     *
     * @return an operation whose value is the {@link Lease}; closing the lease unlocks
     */
    public Operation<Lease> lock() {
        return permit.acquire(1);
    }

    /**
     * Takes the mutex if it is free and nobody waits for it.
     *
     * @return the lease, or null
     */
    public Lease tryLock() {
        return permit.tryAcquire(1);
    }

    /**
     * Whether someone holds the mutex right now.
     *
     * @return true while a lease is open
     */
    public boolean isLocked() {
        return permit.available() == 0;
    }
}
