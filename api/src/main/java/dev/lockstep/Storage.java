package dev.lockstep;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Named blobs in named partitions, held by one runtime at a time.
 *
 * <p>Partition names are non-empty, at most 255 characters, and made of {@code [A-Za-z0-9_-]}; anything else
 * is rejected with {@link PartitionNameInvalidException} naming it, by {@code open}, {@code remove} and
 * {@code scan} alike. Blob names are arbitrary byte strings of 1 to 127 bytes (a longer or empty name is an
 * {@link IllegalArgumentException} at the call), the same on every runtime.
 *
 * <h2>Durability</h2>
 * A completed {@code open} means the blob (and its partition) exist durably; a completed {@code remove} means
 * they are durably gone. Data readable when user code starts is already durable: the runtime syncs its
 * storage before running the root task. Unsynced writes may be lost by a crash.
 *
 * <h2>Concurrency</h2>
 * Several opens of one blob may coexist and read concurrently; concurrent writes to one blob through
 * independent opens are unspecified. Open handles of a removed blob stay readable (unsynced bytes included)
 * until closed; re-opening the name creates a new, independent blob.
 */
public interface Storage {

    /**
     * Opens a blob, creating it (and its partition) durably if missing.
     *
     * @param partition the partition name
     * @param name the blob name, non-empty
     * @return an operation yielding the open blob and its current length
     * @throws PartitionNameInvalidException at the call, for an invalid partition name
     * @throws IllegalArgumentException at the call, for an empty blob name
     * @throws StorageUnavailableException at the call, if the runner was built without a storage directory
     */
    default Operation<OpenedBlob> open(String partition, byte[] name) {
        return open(partition, name, OpenOptions.NONE);
    }

    /**
     * Opens a blob, creating it (and its partition) durably if missing, with options.
     *
     * @param partition the partition name
     * @param name the blob name, non-empty
     * @param options {@link OpenOptions#DIRECT} for direct I/O; not null
     * @return as {@link #open(String, byte[])}; with direct I/O, fails with {@link StorageIoException} where the
     *     file system cannot do it
     * @throws PartitionNameInvalidException at the call, for an invalid partition name
     * @throws IllegalArgumentException at the call, for an empty blob name
     */
    Operation<OpenedBlob> open(String partition, byte[] name, OpenOptions options);

    /**
     * Opens a blob named by the UTF-8 bytes of {@code name}.
     *
     * @param partition the partition name
     * @param name the blob name, non-empty
     * @return as {@link #open(String, byte[])}
     */
    default Operation<OpenedBlob> open(String partition, String name) {
        return open(partition, name.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Opens a blob named by the UTF-8 bytes of {@code name}, with options.
     *
     * @param partition the partition name
     * @param name the blob name, non-empty
     * @param options {@link OpenOptions#DIRECT} for direct I/O; not null
     * @return as {@link #open(String, byte[], OpenOptions)}
     */
    default Operation<OpenedBlob> open(String partition, String name, OpenOptions options) {
        return open(partition, name.getBytes(StandardCharsets.UTF_8), options);
    }

    /**
     * Removes one blob, or with {@code name == null} the whole partition, durably.
     *
     * @param partition the partition name
     * @param name the blob, or null for the whole partition
     * @return an operation that fails with {@link PartitionMissingException} or {@link BlobMissingException}
     *     when there is nothing to remove
     * @throws PartitionNameInvalidException at the call, for an invalid partition name
     * @throws StorageUnavailableException at the call, if the runner was built without a storage directory
     */
    Operation<Void> remove(String partition, byte[] name);

    /**
     * Lists the names of the blobs in a partition, in unsigned lexicographic byte order.
     *
     * @param partition the partition name
     * @return an operation that fails with {@link PartitionMissingException} if the partition does not exist
     * @throws PartitionNameInvalidException at the call, for an invalid partition name
     * @throws StorageUnavailableException at the call, if the runner was built without a storage directory
     */
    Operation<List<byte[]>> scan(String partition);
}
