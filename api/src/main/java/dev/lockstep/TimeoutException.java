package dev.lockstep;

/** A deadline passed before the work finished. */
public final class TimeoutException extends LockstepException {
    /**
     * @param message what failed
     */
    public TimeoutException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public TimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
