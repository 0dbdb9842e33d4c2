package dev.lockstep;

/** A network failure. Messages name the address involved. */
public abstract sealed class NetworkException extends LockstepException
        permits BindFailedException, ConnectionFailedException, SendFailedException, RecvFailedException,
        ReceiveLimitException {
    /**
     * @param message what failed
     * @param cause the cause, or null
     */
    protected NetworkException(String message, Throwable cause) {
        super(message, cause);
    }
}
