package dev.lockstep;

/**
 * The root of every failure Lockstep reports. Unchecked; the subclasses are the whole taxonomy, and tests
 * pin them: {@link ClosedException} (a closed worker, operation, blob, sink or stream, or an aborted task),
 * {@link TimeoutException}, {@link AbortedException} (a completion handle that was aborted),
 * {@link ExitedException} (a task that threw), {@link StorageException} and {@link NetworkException}.
 */
public abstract sealed class LockstepException extends RuntimeException
        permits ClosedException, TimeoutException, AbortedException, ExitedException, StorageException,
                NetworkException {

    /**
     * A failure with a message naming what failed.
     *
     * @param message the message
     * @param cause the cause, or null
     */
    protected LockstepException(String message, Throwable cause) {
        super(message, cause);
    }
}
