package dev.lockstep;

/**
 * What is at a blob's path is not a regular file: a directory, a FIFO, a device or a socket that something other
 * than Lockstep put there. {@link Storage#open} refuses it, on every runtime, before any read or write reaches it
 * (a write to a FIFO would fail with {@code ESPIPE}, a read could wait for a writer that never comes); the message
 * names the path and its type. What is there stays where it is, and no fd of it stays open. A directory, a socket
 * or a device with no driver is refused by the open itself; a FIFO or a device with a driver is opened for reading
 * and writing (a FIFO's open does not wait for a peer), then refused by its type and closed, so a driver sees that
 * open and close.
 */
public final class BlobNotRegularFileException extends StorageException {
    /**
     * @param message what failed, naming the blob, its path and the type found there
     */
    public BlobNotRegularFileException(String message) {
        super(message, null);
    }
}
