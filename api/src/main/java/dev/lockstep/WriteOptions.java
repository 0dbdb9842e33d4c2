package dev.lockstep;

/**
 * Options for writes.
 *
 * <h2>{@code sync}: durable at completion</h2>
 * A write with {@code sync} that completes with success has made its bytes durable: they survive a crash or a
 * power loss from then on. Both runtimes make it the same way, so the simulator's crash model sees the requests
 * runtime-uring makes: a plain write, then the open's group sync ({@link Blob}'s class doc). Once every byte is in
 * the page cache the write waits as a {@link Blob#sync()} called at that moment would: the first
 * {@code fdatasync} of the open issued after the write completed covers it, and one such flush completes every
 * {@code sync} write and every sync of the open waiting for it, whichever worker's fibers made them. So concurrent
 * {@code sync} writes of one open share flushes, and a lone one costs a write and an {@code fdatasync}.
 * <ul>
 *   <li>Not a barrier: a {@code sync} write may or may not make earlier unsynced writes and resizes of the open
 *       durable; only {@link Blob#sync()} promises that.</li>
 *   <li>A write that fails fails with its own error ({@code StorageException} naming the blob), before any flush
 *       on its behalf; bytes it wrote before the failure may persist. A flush that fails fails every {@code sync}
 *       write and sync waiting for it with {@link StorageIoException}, and poisons the open ({@link Blob}: after
 *       a failed sync). A {@code sync} write that failed acknowledges nothing: each of its bytes may or may not
 *       survive a crash, and reads may return them meanwhile.</li>
 *   <li>Closing the operation (or the awaiting task being aborted) does not cancel it: the write and its flush
 *       still run, unobserved. Closing the blob does not either: a {@code sync} write made before the close
 *       finishes, flush included. A worker that closes before the flush started fails the operation with
 *       {@link ClosedException}: nothing acknowledged.</li>
 *   <li>A buffer write ({@link Blob#writeFrom}) keeps its buffer in flight until the operation completes, flush
 *       included.</li>
 * </ul>
 *
 * @param sync the written bytes are durable when the write completes with success (see above)
 * @param dontCache ask the kernel not to keep the written pages cached (best effort)
 */
public record WriteOptions(boolean sync, boolean dontCache) {
    /** Plain write. */
    public static final WriteOptions NONE = new WriteOptions(false, false);
    /** Durable on completion (see the class doc: concurrent {@code SYNC} writes of one open share flushes). */
    public static final WriteOptions SYNC = new WriteOptions(true, false);
    /** Do not keep written pages cached. */
    public static final WriteOptions DONT_CACHE = new WriteOptions(false, true);

    /**
     * The union of two option sets.
     *
     * @param other more options
     * @return both
     */
    public WriteOptions with(WriteOptions other) {
        return new WriteOptions(sync || other.sync, dontCache || other.dontCache);
    }

    /**
     * These options without those of {@code other}.
     *
     * @param other options to remove
     * @return the difference
     */
    public WriteOptions without(WriteOptions other) {
        return new WriteOptions(sync && !other.sync, dontCache && !other.dontCache);
    }
}
