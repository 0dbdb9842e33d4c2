package dev.lockstep;

/** The worker, operation, blob, sink or stream is closed, or the task was aborted. */
public final class ClosedException extends LockstepException {
    /**
     * @param message what failed
     */
    public ClosedException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public ClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
