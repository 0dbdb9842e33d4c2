package dev.lockstep;

/** The operating system failed a storage call; the message names the call, the path and the error. */
public final class StorageIoException extends StorageException {
    /**
     * @param message what failed, naming the partition, blob or offset
     */
    public StorageIoException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public StorageIoException(String message, Throwable cause) {
        super(message, cause);
    }
}
