package dev.lockstep;

/**
 * Options for {@link Storage#open(String, byte[], OpenOptions)}.
 *
 * @param direct open with {@code O_DIRECT}: reads and writes bypass the page cache and move data between the
 *     device and the caller's memory. Every read and write of such a blob must then be aligned to
 *     {@link Blob#directAlignment()} — its offset, its length and, for buffer calls, the address it starts at
 *     in the buffer — and a misaligned call is refused at the call with {@link BlobMisalignedException}
 *     naming the value, on every runtime. Durability is unchanged: the device may still cache writes, so
 *     durable means synced, as for any blob. A file system that cannot do direct I/O fails the open with
 *     {@link StorageIoException}.
 */
public record OpenOptions(boolean direct) {
    /** A plain open through the page cache. */
    public static final OpenOptions NONE = new OpenOptions(false);
    /** Direct I/O. */
    public static final OpenOptions DIRECT = new OpenOptions(true);
}
