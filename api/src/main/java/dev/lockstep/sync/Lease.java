package dev.lockstep.sync;

/**
 * What a {@link Semaphore} or a {@link Mutex} granted: permits held until {@link #close()}. Use it in
 * try-with-resources. Closing gives the permits back and lets the waiters first in line through; closing again does
 * nothing. May be closed from any thread.
 */
public final class Lease implements AutoCloseable {
    private final Semaphore semaphore;
    private final long permits;
    private boolean released; // guarded by the semaphore's lock

    Lease(Semaphore semaphore, long permits) {
        this.semaphore = semaphore;
        this.permits = permits;
    }

    /**
     * The permits this lease holds.
     *
     * @return at least 1
     */
    public long permits() {
        return permits;
    }

    /**
     * Whether the permits went back.
     *
     * @return true after {@link #close()}
     */
    public boolean isReleased() {
        semaphore.lock.lock();
        try {
            return released;
        } finally {
            semaphore.lock.unlock();
        }
    }

    /** Gives the permits back, once. */
    @Override
    public void close() {
        semaphore.giveBack(this);
    }

    /** Marks the lease released; false if it already was. Called under the semaphore's lock. */
    boolean releaseLocked() {
        assert semaphore.lock.isHeldByCurrentThread() : "a lease of " + permits + " released without its lock";
        if (released) {
            return false;
        }
        released = true;
        return true;
    }
}
