package dev.lockstep;

import java.util.Objects;

/**
 * Options for {@link Storage#open(String, byte[], OpenOptions)}: whether the blob may, must or must not exist
 * already, and whether it bypasses the page cache. The two compose: {@code OpenOptions.CREATE_NEW.withDirect(true)}
 * creates a blob for direct I/O and fails if it exists.
 *
 * @param direct open with {@code O_DIRECT}: reads and writes bypass the page cache and move data between the
 *     device and the caller's memory. Every read and write of such a blob must then be aligned to
 *     {@link Blob#directAlignment()} — its offset, its length and, for buffer calls, the address it starts at
 *     in the buffer — and a misaligned call is refused at the call with {@link BlobMisalignedException}
 *     naming the value, on every runtime. Durability is unchanged: the device may still cache writes, so
 *     durable means synced, as for any blob. A file system that cannot do direct I/O fails the open with
 *     {@link StorageIoException}.
 * @param existing what the open does with a blob that exists, or does not; not null
 */
public record OpenOptions(boolean direct, Existing existing) {
    /** A plain open through the page cache, creating the blob if missing. */
    public static final OpenOptions NONE = new OpenOptions(false, Existing.OPEN_OR_CREATE);
    /** Direct I/O, creating the blob if missing. */
    public static final OpenOptions DIRECT = new OpenOptions(true, Existing.OPEN_OR_CREATE);
    /** Creates the blob; fails with {@link BlobExistsException} if it exists ({@code O_CREAT | O_EXCL}). */
    public static final OpenOptions CREATE_NEW = new OpenOptions(false, Existing.CREATE_NEW);
    /**
     * Opens the blob only if it exists: fails with {@link BlobMissingException} (or
     * {@link PartitionMissingException}) and creates nothing otherwise.
     */
    public static final OpenOptions OPEN_EXISTING = new OpenOptions(false, Existing.OPEN_EXISTING);

    /** What an open does with a blob that exists, or does not. */
    public enum Existing {
        /** Opens it if it exists, else creates it (and its partition): {@code O_CREAT}. */
        OPEN_OR_CREATE,
        /**
         * Creates it (and its partition), failing with {@link BlobExistsException} naming it if it exists:
         * {@code O_CREAT | O_EXCL}, decided by the file system at once, so of several opens racing to create one
         * name exactly one succeeds.
         */
        CREATE_NEW,
        /**
         * Opens it only if it exists: a missing blob is {@link BlobMissingException} naming it, a missing
         * partition {@link PartitionMissingException}, and nothing is created.
         */
        OPEN_EXISTING
    }

    /**
     * @param direct as the record component
     * @param existing as the record component
     * @throws NullPointerException if {@code existing} is null
     */
    public OpenOptions {
        Objects.requireNonNull(existing, "existing");
    }

    /**
     * Options that open or create, as {@link #NONE} and {@link #DIRECT} do.
     *
     * @param direct whether to use direct I/O
     */
    public OpenOptions(boolean direct) {
        this(direct, Existing.OPEN_OR_CREATE);
    }

    /**
     * These options with direct I/O on or off.
     *
     * @param direct whether to use direct I/O
     * @return the options
     */
    public OpenOptions withDirect(boolean direct) {
        return new OpenOptions(direct, existing);
    }

    /**
     * These options with another answer to an existing or missing blob.
     *
     * @param existing what to do; not null
     * @return the options
     */
    public OpenOptions withExisting(Existing existing) {
        return new OpenOptions(direct, existing);
    }
}
