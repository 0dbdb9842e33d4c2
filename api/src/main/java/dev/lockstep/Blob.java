package dev.lockstep;

/**
 * One open blob: a byte array on durable storage, addressed by offset.
 *
 * <p>Every call returns an {@link Operation} of the calling fiber's worker. A read of a blob opened through the
 * page cache whose bytes the page cache holds whole may be answered at the call, on the worker's thread, without
 * waiting for a device (runtime-uring asks the kernel with {@code RWF_NOWAIT} first): its operation is then ready
 * when it is returned, and is still taken once like any other. Any other read is submitted to the kernel; the
 * simulator submits every read, and decides its latency and faults. Bad arguments are
 * rejected at the call with {@link IllegalArgumentException} naming the value (negative offset or length,
 * {@code offset + length} overflowing a long). After {@link #close()} every call fails with
 * {@link ClosedException}.
 *
 * <h2>Order</h2>
 * Writes, resizes and preallocations of one open that are in flight at the same time take effect in any order, on
 * every runtime: overlapping writes may leave either's bytes, and a resize may land before or after a write issued
 * earlier (the simulator applies each at its completion and delivers completions in a seeded order). To order two of
 * them, await the first's operation before issuing the second.
 *
 * <h2>Durability</h2>
 * Writes, resizes and preallocations reach the page cache when their operation completes and become durable with
 * the next completed {@link #sync()} of this open. Each open has one durability permit: syncs run one at a time; a
 * sync of an open with nothing written since the last sync completes without asking the kernel; syncs waiting
 * together share one flush, and so do {@link WriteOptions#SYNC} writes, each of which waits, once its bytes are
 * written, as a sync called then would (see {@link WriteOptions}). An open of a
 * blob that already existed starts with something to sync (an earlier open may have been closed with bytes
 * unsynced), so its first sync always reaches the kernel; an open that created the blob starts clean. Closing a
 * write or sync operation never cancels it: retained work finishes and its result is dropped. Closing the
 * blob does not sync.
 *
 * <h2>Buffers</h2>
 * {@link #readInto} and {@link #writeFrom} move bytes between the blob and an {@link IoBuffer} without a copy;
 * the buffer's ownership while the operation runs is described at {@link IoBuffer}. The {@code byte[]} calls
 * are conveniences on the same path: they copy through page-aligned memory of the calling worker (its pool's,
 * up to {@link BufferPool#LARGEST_CLASS_BYTES}). Buffer calls
 * reject, at the call and naming the value: a range outside the buffer or a length out of bounds
 * ({@link IllegalArgumentException}), a released buffer ({@link ClosedException}), a buffer in flight
 * ({@link IllegalStateException}), and a buffer of another worker or runner ({@link IllegalArgumentException}).
 *
 * <h2>Direct I/O</h2>
 * A blob opened with {@link OpenOptions#DIRECT} has a non-zero {@link #directAlignment()}: every read and
 * write, buffer or {@code byte[]}, must have its offset and length aligned to it, and a buffer call also the
 * address {@code buffer.segment().address() + at}; anything else fails at the call with
 * {@link BlobMisalignedException}. Pool buffers start page-aligned, so {@code at = 0} always qualifies.
 *
 * <h2>After a failed sync</h2>
 * A {@link #sync()}, {@link #startSync()} or {@link WriteOptions#SYNC} write that fails (a
 * {@link StorageIoException}) has not made the data durable, and it may have lost it from what is still to
 * sync: Linux reports a writeback error once and marks the pages it could not write clean, so a later sync —
 * of this open, of another open, after a reopen — can succeed without them, while reads may still return the
 * bytes from the page cache. So the open is poisoned: after a failed {@code sync} or {@code startSync}, or a
 * {@code SYNC} write that failed with an I/O error, every later sync of this open (by any fiber) fails too, naming
 * the first failure. Acknowledge nothing written since
 * the last successful sync, close the blob, and rewrite those bytes from your own copy (into the
 * reopened blob or a new one), then sync again. Until that sync succeeds, each of those bytes may or may not
 * survive a crash.
 */
public interface Blob extends AutoCloseable {

    /**
     * The most bytes one read or one write may move: 64 MiB. A longer {@code readAt} or {@code writeAt} is
     * refused at the call with {@link IllegalArgumentException} naming the length, on every runtime, so no
     * call can make a worker allocate gigabytes for one request. Move more in several calls.
     */
    int MAX_TRANSFER_BYTES = 64 << 20;

    /**
     * Reads exactly {@code length} bytes at {@code offset}.
     *
     * @param offset byte offset, {@code >= 0}
     * @param length byte count, {@code 0 <= length <= MAX_TRANSFER_BYTES}; zero is always satisfied, past the end too
     *     (on a blob opened for direct I/O the offset must still be aligned: {@link BlobMisalignedException})
     * @return the bytes; fails with {@link BlobInsufficientLengthException} if the blob ends before
     *     {@code offset + length}
     */
    default Operation<byte[]> readAt(long offset, int length) {
        return readAt(offset, length, ReadOptions.NONE);
    }

    /**
     * Reads exactly {@code length} bytes at {@code offset}, with options.
     *
     * @param offset byte offset, {@code >= 0}
     * @param length byte count, {@code 0 <= length <= MAX_TRANSFER_BYTES}
     * @param options hints that never change the result
     * @return as {@link #readAt(long, int)}
     */
    Operation<byte[]> readAt(long offset, int length, ReadOptions options);

    /**
     * Writes every byte of {@code data} at {@code offset}, extending the blob (a gap reads as zeros).
     *
     * @param offset byte offset, {@code >= 0}
     * @param data the bytes; copied at the call
     * @return completes when the bytes are in the page cache
     */
    default Operation<Void> writeAt(long offset, byte[] data) {
        return writeAt(offset, new byte[][] {data}, WriteOptions.NONE);
    }

    /**
     * Writes the chunks in order, contiguously from {@code offset}.
     *
     * <p>With {@link WriteOptions#SYNC} the written bytes are durable when the operation completes; this is
     * not a barrier for earlier unsynced writes or resizes. Concurrent {@code SYNC} writes of this open share
     * flushes with each other and with its syncs (group sync: {@link WriteOptions}). An empty write, {@code SYNC}
     * or not, changes nothing and does not extend the blob.
     *
     * @param offset byte offset, {@code >= 0}
     * @param chunks the bytes, any number of chunks, at most {@link #MAX_TRANSFER_BYTES} in all; copied at the
     *     call
     * @param options write options, not null
     * @return completes when the bytes are written (durable with {@code SYNC})
     */
    Operation<Void> writeAt(long offset, byte[][] chunks, WriteOptions options);

    /**
     * Reads exactly {@code length} bytes at {@code offset} into {@code into}, starting {@code at} bytes into
     * the buffer. The buffer is in flight until the operation completes (see {@link IoBuffer}).
     *
     * @param offset byte offset, {@code >= 0}
     * @param into a held buffer of the calling worker
     * @param at where in the buffer, {@code 0 <= at} and {@code at + length <= into.capacity()}
     * @param length byte count, {@code 0 <= length <= MAX_TRANSFER_BYTES}; zero is always satisfied, past the end too
     *     (on a blob opened for direct I/O the offset must still be aligned: {@link BlobMisalignedException})
     * @return completes when the bytes are in the buffer; fails with {@link BlobInsufficientLengthException}
     *     if the blob ends before {@code offset + length} (the buffer's range then holds unspecified bytes)
     */
    Operation<Void> readInto(long offset, IoBuffer into, int at, int length);

    /**
     * Writes {@code length} bytes of {@code from}, starting {@code at} bytes into the buffer, at
     * {@code offset}, extending the blob as {@link #writeAt(long, byte[])} does. No copy is made: the buffer
     * is in flight until the operation completes, and closing the operation does not cancel the write.
     *
     * @param offset byte offset, {@code >= 0}
     * @param from a held buffer of the calling worker
     * @param at where in the buffer, {@code 0 <= at} and {@code at + length <= from.capacity()}
     * @param length byte count, {@code 0 <= length <= MAX_TRANSFER_BYTES}; zero changes nothing
     * @param options write options, not null
     * @return completes when the bytes are written (durable with {@link WriteOptions#SYNC})
     */
    Operation<Void> writeFrom(long offset, IoBuffer from, int at, int length, WriteOptions options);

    /**
     * {@link #writeFrom(long, IoBuffer, int, int, WriteOptions)} without options.
     *
     * @param offset byte offset, {@code >= 0}
     * @param from a held buffer of the calling worker
     * @param at where in the buffer
     * @param length byte count
     * @return completes when the bytes are in the page cache
     */
    default Operation<Void> writeFrom(long offset, IoBuffer from, int at, int length) {
        return writeFrom(offset, from, at, length, WriteOptions.NONE);
    }

    /**
     * Reads exactly {@code length} bytes at {@code offset} into {@code into}, waiting on the calling task.
     *
     * <p>Equivalent to {@code readInto(...).await()}, but the caller never sees the operation, so the runtime makes
     * none per call: on a fiber this call allocates nothing in steady state (the buffer paths' zero-garbage
     * form). While it waits the buffer is in flight exactly as with {@code readInto}. It throws what that
     * {@code await} would throw, and on the way out (a failure, the task's abort, an enclosing
     * {@link Clock#timeout}) the request is closed as closing the operation would close it, so nothing it
     * started outlives the call.
     *
     * @param offset byte offset, {@code >= 0}
     * @param into a held buffer of the calling worker
     * @param at where in the buffer, {@code 0 <= at} and {@code at + length <= into.capacity()}
     * @param length byte count, {@code 0 <= length <= MAX_TRANSFER_BYTES}
     * @throws BlobInsufficientLengthException if the blob ends before {@code offset + length}
     */
    default void readFully(long offset, IoBuffer into, int at, int length) {
        readInto(offset, into, at, length).await();
    }

    /**
     * Writes {@code length} bytes of {@code from} at {@code offset}, waiting on the calling task until they are
     * written (durable with {@link WriteOptions#SYNC}).
     *
     * <p>Equivalent to {@code writeFrom(...).await()}, but the caller never sees the operation, so the runtime makes
     * none per call: on a fiber this call allocates nothing in steady state (the buffer paths' zero-garbage
     * form). While it waits the buffer is in flight exactly as with {@code writeFrom}. It throws what that
     * {@code await} would throw, and on the way out (a failure, the task's abort, an enclosing
     * {@link Clock#timeout}) the operation is closed as the caller would close it. A write is retained work, as
     * with {@code writeFrom}: an abort or timeout ends the wait, not the write, and the buffer stays in flight
     * until the write completes.
     *
     * @param offset byte offset, {@code >= 0}
     * @param from a held buffer of the calling worker
     * @param at where in the buffer, {@code 0 <= at} and {@code at + length <= from.capacity()}
     * @param length byte count, {@code 0 <= length <= MAX_TRANSFER_BYTES}
     * @param options write options, not null
     */
    default void writeFully(long offset, IoBuffer from, int at, int length, WriteOptions options) {
        writeFrom(offset, from, at, length, options).await();
    }

    /**
     * {@link #writeFully(long, IoBuffer, int, int, WriteOptions)} without options: written to the page cache.
     *
     * @param offset byte offset, {@code >= 0}
     * @param from a held buffer of the calling worker
     * @param at where in the buffer
     * @param length byte count
     */
    default void writeFully(long offset, IoBuffer from, int at, int length) {
        writeFully(offset, from, at, length, WriteOptions.NONE);
    }

    /**
     * The alignment direct I/O needs on this open: the file system's logical block size for its device
     * ({@code statx} {@code STATX_DIOALIGN} on Linux, the larger of its memory and offset alignments), or 0
     * for a blob opened without {@link OpenOptions#DIRECT}.
     *
     * @return a power of two, or 0
     */
    int directAlignment();

    /**
     * Sets the length: extends with zeros or truncates.
     *
     * @param length the new length, {@code >= 0}
     * @return completes when resized (durable after the next sync)
     */
    Operation<Void> resize(long length);

    /**
     * Preallocates: reserves disk space for {@code length} bytes at {@code offset}, and extends the blob to
     * {@code offset + length} if it is shorter ({@code fallocate} with mode 0). It never shrinks the blob and
     * changes no byte: what was written stays, the rest reads as zeros. A write-ahead log allocates its segment up
     * front, so appends inside it neither grow the blob nor find the device full. Direct I/O needs no alignment
     * here.
     *
     * <p>Durability: a resize's. The new length is metadata, durable after the next completed {@link #sync()} of
     * this open; a crash before that may leave the blob at its old length. Retained work, like a write: closing the
     * operation does not stop it.
     *
     * @param offset where the range starts, {@code >= 0}
     * @param length its bytes, {@code > 0}
     * @return completes when the space is allocated; fails with {@link StorageFullException} naming the blob and
     *     the range when the device lacks the space, {@link StorageIoException} for any
     *     other refusal (an I/O error, a file system that cannot preallocate, a range past the largest file);
     *     a failed allocation may have allocated, and grown the blob by, part of the range, as ext4 keeps what it
     *     got before running out
     * @throws IllegalArgumentException naming the value, at the call: a negative offset, a length that is not
     *     positive, {@code offset + length} overflowing a long
     */
    Operation<Void> allocate(long offset, long length);

    /**
     * Makes every completed write and resize of this open durable.
     *
     * @return completes when durable; fails with {@link StorageIoException} if the kernel's writeback failed,
     *     after which the open is poisoned (see the class doc: retrying does not bring the data back)
     */
    Operation<Void> sync();

    /**
     * Hands a sync to the worker at once — even with a full ring — and returns its completion handle. The
     * sync runs whether or not the handle is awaited or closed.
     *
     * @return the handle: completes as {@link #sync()}
     */
    Operation<Void> startSync();

    /**
     * The current length as this open knows it (completed writes and resizes included).
     *
     * @return the length
     */
    long length();

    /** Releases the file. Idempotent. In-flight writes and syncs finish first; unsynced data may be lost. */
    @Override
    void close();
}
