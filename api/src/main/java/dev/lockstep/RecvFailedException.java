package dev.lockstep;

/** A receive failed (reset, or the peer closed before the bytes asked for arrived). */
public final class RecvFailedException extends NetworkException {
    /**
     * @param message what failed, naming the address
     */
    public RecvFailedException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public RecvFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
