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
 * they are durably gone. A completed {@code rename} is atomic but not yet durable: it is durable once a
 * {@link #syncPartition} of its partition called after it completed, or a later {@code open} that creates a blob
 * in the partition or {@code remove} of one, has completed. Until then a crash leaves either the old names
 * (the blob under its old name, the replaced blob, if any, under the new one) or the new ones, never a mix; code
 * that recovers must accept both. A rename moves a blob's name, not its data: bytes written to it and not synced
 * may be lost by a crash whatever it is called. Data readable when user code starts is already durable: the
 * runtime syncs its storage before running the root task. Unsynced writes may be lost by a crash.
 *
 * <p>So a blob is replaced crash-safely (a manifest, a snapshot, a checkpoint) by writing the new contents to
 * a temporary blob, syncing it, renaming it over the old name and syncing the partition: after a crash the name
 * holds the old contents or the new ones, whole, and once {@code syncPartition} completed, the new ones.
 *
 * <h2>Failures of the calls that change names</h2>
 * {@code open} (when it creates), {@code rename}, {@code remove} and {@code syncPartition} fail typed, naming the
 * blob or partition: {@link StorageFullException} when the device has no room for a new entry ({@code ENOSPC}: an
 * open that creates, a rename), {@link StorageIoException} for an I/O error or a full descriptor table
 * ({@code EMFILE}), the errno named in the message, the same on every runtime. A failed call may still have had
 * its effect, as on Linux: an open that created its blob and then failed to make it durable (the partition's
 * sync failed) leaves the blob there, empty, so a {@link OpenOptions#CREATE_NEW} retried after that failure fails
 * with {@link BlobExistsException}, and a crash may keep or drop the blob. The runtime does not remove it on the
 * failure, as that removal would be no more durable than the create was: recovery opens such a blob with
 * {@link OpenOptions#OPEN_EXISTING} or removes it.
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
     * Opens a blob with options: creating it (and its partition) durably if missing, or only if missing
     * ({@link OpenOptions#CREATE_NEW}), or only if it exists ({@link OpenOptions#OPEN_EXISTING}); through the page
     * cache or with direct I/O ({@link OpenOptions#withDirect}).
     *
     * @param partition the partition name
     * @param name the blob name, non-empty
     * @param options how to open; not null
     * @return as {@link #open(String, byte[])}; fails with {@link BlobExistsException} naming the blob if it
     *     exists and the options say {@link OpenOptions.Existing#CREATE_NEW}, with {@link BlobMissingException}
     *     naming it or {@link PartitionMissingException} naming its partition if it does not and they say
     *     {@link OpenOptions.Existing#OPEN_EXISTING} (nothing is created then); with direct I/O, with
     *     {@link StorageIoException} where the file system cannot do it
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
     * @param options how to open; not null
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
     * Renames a blob within its partition, atomically replacing the blob {@code to} names if there is one: from
     * its completion on, {@code to} names the renamed blob and {@code from} names nothing. Not durable until the
     * partition is synced (see "Durability" above). Open handles keep working on the blob they opened, renamed
     * or replaced: a replaced blob stays readable through them until they are closed, as a removed one does.
     * Renaming a blob to its own name changes nothing.
     *
     * @param partition the partition name
     * @param from the blob to rename
     * @param to its new name
     * @return an operation that fails with {@link PartitionMissingException} or {@link BlobMissingException}
     *     (naming {@code from}) when there is nothing to rename, and with {@link StorageIoException} naming both
     *     blobs when the device refuses
     * @throws PartitionNameInvalidException at the call, for an invalid partition name
     * @throws IllegalArgumentException at the call, for an empty or too long blob name
     * @throws StorageUnavailableException at the call, if the runner was built without a storage directory
     */
    Operation<Void> rename(String partition, byte[] from, byte[] to);

    /**
     * Renames a blob named by the UTF-8 bytes of {@code from} to the UTF-8 bytes of {@code to}.
     *
     * @param partition the partition name
     * @param from the blob to rename
     * @param to its new name
     * @return as {@link #rename(String, byte[], byte[])}
     */
    default Operation<Void> rename(String partition, String from, String to) {
        return rename(partition, from.getBytes(StandardCharsets.UTF_8), to.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Makes a partition's directory durable ({@code fsync} of the directory, and of the storage root if the
     * partition was created and its entry is not yet durable): every rename in it that completed before this
     * call survives a crash once this completes. Blob contents are not synced: that is {@link Blob#sync()}.
     *
     * @param partition the partition name
     * @return an operation that fails with {@link PartitionMissingException} if the partition does not exist,
     *     and with {@link StorageIoException} if the device refuses (the renames' durability is then unknown:
     *     sync again)
     * @throws PartitionNameInvalidException at the call, for an invalid partition name
     * @throws StorageUnavailableException at the call, if the runner was built without a storage directory
     */
    Operation<Void> syncPartition(String partition);

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
