package dev.lockstep;

/** Connecting failed (refused, unreachable, partitioned). */
public final class ConnectionFailedException extends NetworkException {
    /**
     * @param message what failed, naming the address
     */
    public ConnectionFailedException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public ConnectionFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
