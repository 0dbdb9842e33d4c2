package dev.lockstep;

/** A task failed with an exception, which is the cause. */
public final class ExitedException extends LockstepException {
    /**
     * @param message what failed
     */
    public ExitedException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public ExitedException(String message, Throwable cause) {
        super(message, cause);
    }
}
