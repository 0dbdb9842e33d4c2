package dev.lockstep;

/**
 * A storage failure. The subclasses name the case; {@link StorageIoException} carries an operating-system
 * error the others do not cover. Messages name the partition, the blob and the offset involved.
 */
public abstract sealed class StorageException extends LockstepException
        permits PartitionNameInvalidException, PartitionMissingException, BlobMissingException,
                BlobInsufficientLengthException, BlobCorruptException, StorageFullException, StorageIoException,
                StorageHeldException, StorageUnavailableException, BlobMisalignedException, BlobExistsException,
                BlobNotRegularFileException {
    /**
     * @param message what failed
     * @param cause the cause, or null
     */
    protected StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
