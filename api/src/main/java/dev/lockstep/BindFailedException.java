package dev.lockstep;

/** Binding or listening on an address failed (in use, not local, not permitted). */
public final class BindFailedException extends NetworkException {
    /**
     * @param message what failed, naming the address
     */
    public BindFailedException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public BindFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
