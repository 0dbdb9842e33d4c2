package dev.lockstep;

/** The device is full (ENOSPC); the failed write may have persisted in part. */
public final class StorageFullException extends StorageException {
    /**
     * @param message what failed, naming the partition, blob or offset
     */
    public StorageFullException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public StorageFullException(String message, Throwable cause) {
        super(message, cause);
    }
}
