package dev.lockstep.engine.buffer;

import dev.lockstep.IoBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A user's {@link IoBuffer}: a handle to pool memory. Every field is owned by the pool's worker (see
 * {@link WorkerBuffers} for the argument); a released handle is never reused, so a stale one is recognised.
 */
public final class PooledBuffer implements IoBuffer {
    public final WorkerBuffers pool;
    final int capacity;
    /** The memory, or null once released. */
    public MemorySegment memory;
    /** The arena of a buffer past the largest size class, closed when released; null for class buffers. */
    Arena ownArena;
    /** An I/O request has the buffer: the kernel may read or write it. */
    public boolean inFlight;
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
