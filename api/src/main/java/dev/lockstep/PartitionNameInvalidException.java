package dev.lockstep;

/** A partition name is empty or has a character outside [A-Za-z0-9_-]. */
public final class PartitionNameInvalidException extends StorageException {
    /**
     * @param message what failed, naming the partition, blob or offset
     */
    public PartitionNameInvalidException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public PartitionNameInvalidException(String message, Throwable cause) {
        super(message, cause);
    }
}
