package dev.lockstep;

/** A blob's contents are not what its format requires. */
public final class BlobCorruptException extends StorageException {
    /**
     * @param message what failed, naming the partition, blob or offset
     */
    public BlobCorruptException(String message) {
        super(message, null);
    }

    /**
     * @param message what failed
     * @param cause the underlying failure
     */
    public BlobCorruptException(String message, Throwable cause) {
        super(message, cause);
    }
}
