package dev.lockstep;

/** A completion handle was aborted before it completed. */
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
