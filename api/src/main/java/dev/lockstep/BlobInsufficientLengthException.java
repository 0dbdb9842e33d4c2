package dev.lockstep;

/** A read asked for bytes past the end of the blob. */
public final class BlobInsufficientLengthException extends StorageException {
    /**
     * @param message what failed, naming the partition, blob or offset
     */
    public BlobInsufficientLengthException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public BlobInsufficientLengthException(String message, Throwable cause) {
        super(message, cause);
    }
}
