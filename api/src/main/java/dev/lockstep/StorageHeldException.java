package dev.lockstep;

/** The storage directory is held by another runtime. */
public final class StorageHeldException extends StorageException {
    /**
     * @param message what failed, naming the partition, blob or offset
     */
    public StorageHeldException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public StorageHeldException(String message, Throwable cause) {
        super(message, cause);
    }
}
