package dev.lockstep.engine.buffer;

import dev.lockstep.IoBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A user's {@link IoBuffer}: a handle to pool memory. Every field is owned by the pool's worker (see
 * {@link WorkerBuffers} for the argument); a released handle is never reused, so a stale one is recognised.
 */
public final class PooledBuffer implements IoBuffer {
    final WorkerBuffers pool;
    final int capacity;
    /** The memory, or null once released. */
    MemorySegment memory;
    /** The arena of a buffer past the largest size class, closed when released; null for class buffers. */
    Arena ownArena;
    /** An I/O request has the buffer: the kernel may read or write it. */
    boolean inFlight;
    /** Closed by its holder while in flight: return it to the pool when the kernel lets go. */
    boolean releaseRequested;
    /** Where the pool lists it while handed out; -1 once returned. */
    int index = -1;

    PooledBuffer(WorkerBuffers pool, MemorySegment memory, Arena ownArena) {
        this.pool = pool;
        this.memory = memory;
        this.ownArena = ownArena;
        this.capacity = (int) memory.byteSize();
    }

    /**
     * The buffer's memory, for the request an I/O call makes of it: unchecked, unlike {@link #segment()}. The
     * pool's worker only, after {@link WorkerBuffers#check(dev.lockstep.engine.worker.Worker, IoBuffer, int, int,
     * String)} accepted the buffer in this call (so it is not released, and not null).
     *
     * @return the memory
     */
    public MemorySegment memory() {
        return memory;
    }

    /**
     * Lends the buffer to the kernel: until {@link #landed()} (or {@link #abandon()}) it is in flight, and an I/O
     * call or a {@link #close()} given it sees so. The pool's worker only, once the call has checked the buffer and
     * made the request that will land it, just before admitting that request.
     */
    public void markInFlight() {
        inFlight = true;
    }

    /**
     * The kernel let go of the lent buffer: {@link WorkerBuffers#landed}. The pool's worker only.
     */
    public void landed() {
        pool.landed(this);
    }

    /**
     * The ring failed while the kernel held the lent buffer: {@link WorkerBuffers#abandon}. The pool's worker only.
     */
    public void abandon() {
        pool.abandon(this);
    }

    @Override
    public MemorySegment segment() {
        return pool.segment(this);
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public void close() {
        pool.release(this);
    }

    @Override
    public String toString() {
        return "IoBuffer(" + capacity + " bytes of " + pool.describeOwner() + ")";
    }
}
