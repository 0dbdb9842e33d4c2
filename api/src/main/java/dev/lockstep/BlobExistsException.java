package dev.lockstep;

/** The blob exists, and the call was to create it ({@link OpenOptions.Existing#CREATE_NEW}). */
public final class BlobExistsException extends StorageException {
    /**
     * @param message what failed, naming the blob
     */
    public BlobExistsException(String message) {
        super(message, null);
    }
}
