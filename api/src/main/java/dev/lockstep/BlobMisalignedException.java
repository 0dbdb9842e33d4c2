package dev.lockstep;

/**
 * A read or write of a blob opened with {@link OpenOptions#direct()} was not aligned to
 * {@link Blob#directAlignment()}: the message names the offset, length or buffer address and the alignment.
 * Thrown at the call; nothing reached the kernel.
 */
public final class BlobMisalignedException extends StorageException {
    /**
     * @param message what was misaligned, naming the value and the alignment
     */
    public BlobMisalignedException(String message) {
        super(message, null);
    }
}
