package dev.lockstep;

/** The partition does not exist. */
public final class PartitionMissingException extends StorageException {
    /**
     * @param message what failed, naming the partition, blob or offset
     */
    public PartitionMissingException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public PartitionMissingException(String message, Throwable cause) {
        super(message, cause);
    }
}
