package dev.lockstep;

/**
 * Work was given up from outside before it completed: a completion handle was aborted, a wait on a plain thread
 * was ended by an interrupt of that thread ({@link Operation#await()}), or {@link Runner#start} was interrupted.
 * An interrupt that caused it is still set on the thread.
 */
public final class AbortedException extends LockstepException {
    /**
     * @param message what failed
     */
    public AbortedException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public AbortedException(String message, Throwable cause) {
        super(message, cause);
    }
}
