package dev.lockstep.engine.io;

import dev.lockstep.engine.buffer.PooledBuffer;
import dev.lockstep.engine.buffer.WorkerBuffers;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Recycler;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Ring;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A request that goes through the ring on an fd it holds a reference to, with at most one kernel-visible
 * buffer. Both stay owned by the request until it retires: the fd reference keeps the number from being
 * reused, the buffer stays allocated until the kernel's last completion for it.
 */
abstract class RingRequest extends Request {
    /**
     * The fd the request uses, or null (a connect creates its own socket). Set again only when a retired request
     * is reused ({@link #reuse}).
     */
    protected SharedFd file;
    /** Memory the kernel reads or writes, allocated on the worker at the first submission. */
    protected MemorySegment buffer;
    /** The pool {@link #buffer} came from ({@link #pooledBuffer}), or null. */
    private WorkerBuffers bufferPool;
    /** The arena of a {@link #pooledBuffer} past the largest size class, or null. */
    private Arena bufferArena;
    /** The user's buffer this request has in flight, or null (none, or landed). */
    protected PooledBuffer lent;
    /** Chunks of a long write or send waiting for their first submission ({@link #copyChunks}), or null. */
    private byte[] pendingChunks;
    private WorkerBuffers pendingPool;
    /** Released as abandoned ({@link #releaseAbandoned}): the kernel may still hold it, so it is never reused. */
    private boolean abandoned;

    RingRequest(SharedFd file) {
        this.file = file;
    }

    /**
     * Readies a retired request for its next admission (see {@link Recycler}): {@link #release} has emptied its
     * buffers and fd reference, and this clears what a request that never reached the ring may have left.
     *
     * @param file the fd the next use holds a reference to
     */
    final void reuse(SharedFd file) {
        clearForReuse();
        this.file = file;
        buffer = null;
        bufferPool = null;
        bufferArena = null;
        lent = null;
        pendingChunks = null;
        pendingPool = null;
    }

    /**
     * Whether {@link #release} may hand this request to a {@link Recycler}: not once released as abandoned.
     *
     * @return true unless the kernel may still hold it
     */
    final boolean reusable() {
        return !abandoned;
    }

    @Override
    public final Kind kind() {
        return Kind.RING;
    }

    /**
     * Whether a result only means "try again": the call was interrupted or would have blocked.
     *
     * @param result a completion result
     * @return true for {@code -EINTR} and {@code -EAGAIN}
     */
    static boolean isTransient(int result) {
        return result == -Errno.EINTR || result == -Errno.EAGAIN;
    }

    /**
     * {@code memory} from {@code at} on, without allocating a slice when {@code at} is 0: a submission's length
     * bounds what the kernel touches, so the whole segment serves.
     *
     * @param memory the memory
     * @param at the offset, {@code 0 <= at <= memory.byteSize()}
     * @return the memory, or a slice of it
     */
    static MemorySegment slicedFrom(MemorySegment memory, long at) {
        return at == 0 ? memory : memory.asSlice(at);
    }

    /** Allocates the buffer on first use. */
    protected final MemorySegment buffer(Ring ring, long size) {
        if (buffer == null) {
            buffer = ring.allocate(size);
        }
        return buffer;
    }

    /** Allocates the buffer on first use, filled with {@code data}. */
    protected final MemorySegment buffer(Ring ring, byte[] data) {
        if (buffer == null) {
            buffer = ring.allocate(data.length);
            MemorySegment.copy(data, 0, buffer, ValueLayout.JAVA_BYTE, 0, data.length);
        }
        return buffer;
    }

    /**
     * Page-aligned memory on first use: a class buffer of the worker's pool, or past the largest class an arena
     * of the request's own. Only the worker touches it, but from its thread and from its fibers (an inline turn
     * prepares a request on the fiber, a service turn may release it), which a confined arena would tell apart:
     * so a shared one, as the pool's own oversized buffers. The {@code byte[]}
     * calls copy through it, so they take the buffer path and stay aligned for direct I/O.
     *
     * @param pool the worker's pool
     * @param size bytes, {@code >= 1}
     * @return at least {@code size} bytes
     */
    protected final MemorySegment pooledBuffer(WorkerBuffers pool, long size) {
        if (buffer == null) {
            if (WorkerBuffers.pooled(size)) {
                buffer = pool.take(size);
                bufferPool = pool;
            } else {
                Arena own = Arena.ofShared();
                try {
                    buffer = pool.allocateNative(own, size);
                } catch (RuntimeException | Error failure) {
                    own.close();
                    throw failure;
                }
                bufferArena = own;
            }
        }
        return buffer;
    }

    /**
     * {@link #pooledBuffer(WorkerBuffers, long)} filled with {@code data}.
     *
     * @param pool the worker's pool
     * @param data the bytes, at least one
     * @return the memory
     */
    protected final MemorySegment pooledBuffer(WorkerBuffers pool, byte[] data) {
        if (buffer == null) {
            pooledBuffer(pool, data.length);
            MemorySegment.copy(data, 0, buffer, ValueLayout.JAVA_BYTE, 0, data.length);
        }
        return buffer;
    }

    /**
     * Copies the {@code byte[]} chunks of a write or send at the call, on the calling fiber of the pool's worker:
     * into pool memory, returned; or, past the largest size class, into one array that {@link #pendingCopy()}
     * moves to memory at the first submission (that memory is confined to the worker's own thread), and null.
     *
     * @param pool the caller's worker's pool
     * @param chunks the chunks
     * @param count their total length, {@code >= 1}
     * @return the pooled copy, or null
     */
    protected final MemorySegment copyChunks(WorkerBuffers pool, byte[][] chunks, int count) {
        if (WorkerBuffers.pooled(count)) {
            MemorySegment memory = pooledBuffer(pool, count);
            long at = 0;
            for (byte[] chunk : chunks) {
                MemorySegment.copy(chunk, 0, memory, ValueLayout.JAVA_BYTE, at, chunk.length);
                at += chunk.length;
            }
            return memory;
        }
        pendingPool = pool;
        pendingChunks = new byte[count];
        int at = 0;
        for (byte[] chunk : chunks) {
            System.arraycopy(chunk, 0, pendingChunks, at, chunk.length);
            at += chunk.length;
        }
        return null;
    }

    /**
     * The memory for chunks {@link #copyChunks} kept in an array; at the first submission, on the worker.
     *
     * @return the memory
     */
    protected final MemorySegment pendingCopy() {
        MemorySegment memory = pooledBuffer(pendingPool, pendingChunks);
        pendingChunks = null;
        return memory;
    }

    /**
     * The kernel has let go of the user's buffer: the last completion for it arrived. Called when the request
     * is done, so its holder has the buffer back before the result can be observed, and again (doing nothing)
     * at retirement.
     */
    protected final void landLent() {
        if (lent != null) {
            PooledBuffer landing = lent;
            lent = null;
            landing.landed();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The buffer is dropped, not freed: the kernel may write it until its own teardown of the failed ring
     * ends, so it stays allocated for the life of the process.
     */
    @Override
    public void releaseAbandoned(Ring ring) {
        abandoned = true;
        buffer = null;
        bufferPool = null;
        bufferArena = null;
        if (lent != null) {
            lent.abandon();
            lent = null;
        }
        release(ring);
    }

    @Override
    public void release(Ring ring) {
        landLent();
        if (buffer != null) {
            if (bufferPool != null) {
                bufferPool.give(buffer);
            } else if (bufferArena != null) {
                bufferArena.close();
            } else {
                ring.free(buffer);
            }
            buffer = null;
            bufferPool = null;
            bufferArena = null;
        }
        if (file != null) {
            file.release();
            file = null;
        }
    }
}
