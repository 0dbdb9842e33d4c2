package dev.lockstep;

/** The blob does not exist. */
public final class BlobMissingException extends StorageException {
    /**
     * @param message what failed, naming the partition, blob or offset
     */
    public BlobMissingException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public BlobMissingException(String message, Throwable cause) {
        super(message, cause);
    }
}
