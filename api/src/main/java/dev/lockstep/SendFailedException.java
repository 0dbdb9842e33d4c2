package dev.lockstep;

/** A send failed (reset, broken pipe); part of the message may have been delivered. */
public final class SendFailedException extends NetworkException {
    /**
     * @param message what failed, naming the address
     */
    public SendFailedException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public SendFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
