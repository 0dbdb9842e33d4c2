package dev.lockstep;

/**
 * A worker's pool of {@link IoBuffer}s: page-aligned native memory in power-of-two size classes from
 * {@link #PAGE_BYTES} to {@link #LARGEST_CLASS_BYTES}, reused without a lock because one worker owns it.
 * Larger buffers, up to {@link #MAX_BUFFER_BYTES}, are allocated for their holder alone and freed when
 * released. Obtained with {@link Context#buffers()}; the rules a buffer follows are at {@link IoBuffer}.
 *
 * <h2>Memory</h2>
 * A released class buffer is kept on its class's free list for the worker's next allocation and freed when the
 * runner ends, so a pool's native memory is the most its class buffers ever held at once: the holders' buffers,
 * and the copies of the {@code byte[]} calls in flight — for a pending {@link Stream#recv}, one chunk of 16 to
 * 64 KiB whatever length it asked for. Buffers past {@link #LARGEST_CLASS_BYTES} are freed when released.
 *
 * <h2>Threads</h2>
 * Only tasks running on the pool's worker may allocate (elsewhere {@link IllegalStateException} names both
 * workers). {@link #outstanding()} may be read from any thread once its runner has ended, and from the
 * worker's tasks while it runs.
 */
public interface BufferPool {
    /** The alignment of every buffer's address and the smallest size class: 4 KiB. */
    int PAGE_BYTES = 4096;

    /** The largest size class: 1 MiB. Larger buffers are not kept by the pool once released. */
    int LARGEST_CLASS_BYTES = 1 << 20;

    /** The largest buffer: 64 MiB, the most one transfer may move ({@link Blob#MAX_TRANSFER_BYTES}). */
    int MAX_BUFFER_BYTES = 64 << 20;

    /**
     * Allocates a held buffer of at least {@code size} bytes.
     *
     * @param size {@code 1 <= size <= MAX_BUFFER_BYTES}
     * @return the buffer; its {@link IoBuffer#capacity()} is {@code size} rounded up to its size class
     * @throws IllegalArgumentException naming {@code size} when it is out of range
     * @throws IllegalStateException off the pool's worker
     * @throws ClosedException once the pool's runner has ended
     * @throws OutOfMemoryError if native memory for it cannot be had (the pool is unchanged, nothing is held)
     */
    IoBuffer allocate(int size);

    /**
     * Buffers allocated and not yet returned to the pool (a buffer closed while in flight counts until the
     * kernel lets it go); zero once the runner has ended.
     *
     * @return the count
     */
    int outstanding();
}
