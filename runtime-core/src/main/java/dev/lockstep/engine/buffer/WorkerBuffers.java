package dev.lockstep.engine.buffer;

import dev.lockstep.BufferPool;
import dev.lockstep.ClosedException;
import dev.lockstep.IoBuffer;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.engine.worker.WorkerMetrics;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One worker's {@link BufferPool}: page-aligned native memory in power-of-two size classes, kept on one free
 * list per class, for user buffers ({@link PooledBuffer}) and for the copies of the {@code byte[]} calls.
 *
 * <h2>Threads, and why there is no lock</h2>
 * Every field is read and written only by the owning worker: by its fibers (allocate, close, lend at an I/O
 * call) and by the thread servicing it (a request landing or returning its buffer at completion and
 * retirement). On runtime-uring those are one OS thread — the worker is the only carrier of its fibers — and
 * in the simulator every worker runs on the one simulator thread; either way the accesses are in program order
 * on one thread and need no synchronization. Each public entry checks the caller's worker identity
 * ({@link Worker#current()}) and refuses any other caller with an exception, so a foreign thread never touches
 * the state. The one exception is {@link #outstanding()}: after the runner ended it follows the workers'
 * termination ({@code Runner.start} returns after every worker thread finished, a happens-before edge), and
 * during the run the {@code lockstep.buffers.outstanding} gauge reads it racily from a metrics thread: an int
 * the worker wrote, never torn, possibly stale, which is what a gauge is (see {@link WorkerMetrics}).
 *
 * <h2>Memory</h2>
 * Size classes from {@link #PAGE_BYTES} to {@link #LARGEST_CLASS_BYTES} are cut from chunks of at least
 * {@link #CHUNK_BYTES} allocated in the pool's shared arena (shared because fibers are virtual threads, not the
 * carrier that owns a confined arena); they go back to their free list when released and are freed together
 * when the worker retires, after every request has let go. Larger buffers get an arena of their own, closed
 * when released. A segment used after its buffer was released therefore sees the next holder's bytes (a
 * class buffer) or throws {@link IllegalStateException} (a large buffer, or any buffer once the worker
 * retired) — it never reads freed memory. Memory the kernel may still write when its ring failed is never
 * freed ({@link #abandon}).
 */
public final class WorkerBuffers implements BufferPool {
    private static final int SMALLEST_SHIFT = 12;
    private static final int LARGEST_SHIFT = 20;
    private static final int CLASSES = LARGEST_SHIFT - SMALLEST_SHIFT + 1;
    /** Class buffers are cut from chunks at least this large, so the arena's alignment slack stays small. */
    static final int CHUNK_BYTES = 64 << 10;

    private final Worker owner;
    /** Created at the first class buffer: a runner whose workers never use one closes no arena. */
    private Arena arena;
    private final MemorySegment[][] free = new MemorySegment[CLASSES][];
    private final int[] freeCount = new int[CLASSES];
    /** User buffers not yet returned, so retirement can release them; each knows its index here. */
    private PooledBuffer[] handedOut = new PooledBuffer[8];
    private int handedOutCount;
    /**
     * Tests only: native allocations of this pool whose size it accepts fail as the JDK's do when native memory
     * runs out ({@link #allocateNative}); null in production. Worker only, as every field here.
     */
    java.util.function.LongPredicate refuseNativeAllocation;
    /** Memory the kernel held when its ring failed: never freed, so the arena is never closed. */
    private boolean abandoned;
    private boolean closed;
    /** Native memory of the size classes' chunks, reserved until the pool closes (a gauge reads it). */
    private long reservedBytes;

    public WorkerBuffers(Worker owner) {
        this.owner = owner;
        for (int i = 0; i < CLASSES; i++) {
            free[i] = new MemorySegment[4];
        }
    }

    /** The size class holding {@code size} bytes, or -1 past the largest. */
    private static int classOf(long size) {
        if (size <= PAGE_BYTES) {
            return 0;
        }
        int shift = 64 - Long.numberOfLeadingZeros(size - 1);
        return shift > LARGEST_SHIFT ? -1 : shift - SMALLEST_SHIFT;
    }

    private void checkOwner(String call) {
        Worker caller = Worker.current();
        if (caller != owner) {
            throw new IllegalStateException(call + " must run on a task of " + describeOwner() + ", not on "
                    + describe(caller));
        }
    }

    String describeOwner() {
        return owner.toString();
    }

    private String describe(Worker caller) {
        if (caller == null) {
            return "thread " + Thread.currentThread().getName();
        }
        return caller.engine() == owner.engine() ? caller.toString() : caller + " of another runner";
    }

    @Override
    public IoBuffer allocate(int size) {
        checkOwner("BufferPool.allocate");
        if (size < 1 || size > MAX_BUFFER_BYTES) {
            throw new IllegalArgumentException("buffer size must be in [1, BufferPool.MAX_BUFFER_BYTES ("
                    + MAX_BUFFER_BYTES + ")], was " + size);
        }
        if (closed) {
            throw new ClosedException("the buffer pool of " + owner + " is closed: its runner ended");
        }
        int sizeClass = classOf(size);
        PooledBuffer buffer;
        if (sizeClass < 0) {
            Arena own = Arena.ofShared();
            long rounded = ((long) size + PAGE_BYTES - 1) & -PAGE_BYTES;
            MemorySegment memory;
            try {
                memory = allocateNative(own, rounded);
            } catch (RuntimeException | Error failure) {
                own.close();
                throw failure;
            }
            buffer = new PooledBuffer(this, memory, own);
        } else {
            buffer = new PooledBuffer(this, take(sizeClass), null);
        }
        if (handedOutCount == handedOut.length) {
            handedOut = Arrays.copyOf(handedOut, handedOutCount * 2);
        }
        buffer.index = handedOutCount;
        handedOut[handedOutCount++] = buffer;
        return buffer;
    }

    @Override
    public int outstanding() {
        return handedOutCount;
    }

    // ---- memory for the byte[] calls: never seen by users ----

    /**
     * Whether {@link #take} serves {@code size} bytes.
     *
     * @param size bytes
     * @return true up to the largest class
     */
    public static boolean pooled(long size) {
        return size >= 1 && classOf(size) >= 0;
    }

    /**
     * Memory for one request's copy: a class buffer. Worker only.
     *
     * @param size bytes, {@code 1 <= size <= LARGEST_CLASS_BYTES}
     * @return page-aligned memory of the class holding {@code size}; give it back with {@link #give}
     */
    public MemorySegment take(long size) {
        return take(classOf(size));
    }

    private MemorySegment take(int sizeClass) {
        if (closed) {
            // Only a request made after its worker retired could ask; the arena is gone, so refuse.
            throw new ClosedException("the buffer pool of " + owner + " is closed: its worker retired");
        }
        if (freeCount[sizeClass] == 0) {
            long size = (long) PAGE_BYTES << sizeClass;
            long chunk = Math.max(size, CHUNK_BYTES);
            if (arena == null) {
                arena = Arena.ofShared();
            }
            MemorySegment memory = allocateNative(arena, chunk);
            reservedBytes += chunk;
            owner.metrics().bufferBytes(chunk);
            for (long at = chunk - size; at >= 0; at -= size) {
                push(sizeClass, memory.asSlice(at, size));
            }
        }
        MemorySegment memory = free[sizeClass][--freeCount[sizeClass]];
        free[sizeClass][freeCount[sizeClass]] = null;
        return memory;
    }

    /**
     * Every native allocation of the pool and of the requests' own large copies: {@code size} page-aligned bytes
     * from {@code arena}. Fails as the arena does when native memory runs out ({@link OutOfMemoryError}), or as
     * a test asked ({@link #refuseNativeAllocation}).
     *
     * @param arena the arena to allocate in
     * @param size bytes
     * @return the memory
     */
    public MemorySegment allocateNative(Arena arena, long size) {
        java.util.function.LongPredicate refuse = refuseNativeAllocation;
        if (refuse != null && refuse.test(size)) {
            throw new OutOfMemoryError("Cannot reserve " + size + " bytes of native memory (refused by a test)");
        }
        return arena.allocate(size, PAGE_BYTES);
    }

    private void push(int sizeClass, MemorySegment memory) {
        if (freeCount[sizeClass] == free[sizeClass].length) {
            free[sizeClass] = Arrays.copyOf(free[sizeClass], freeCount[sizeClass] * 2);
        }
        free[sizeClass][freeCount[sizeClass]++] = memory;
    }

    /**
     * Returns memory from {@link #take}; after the pool closed, drops it (the arena is gone). Worker only.
     *
     * @param memory the memory
     */
    public void give(MemorySegment memory) {
        int sizeClass = classOf(memory.byteSize());
        if (!closed && sizeClass >= 0 && memory.byteSize() == (long) PAGE_BYTES << sizeClass) {
            push(sizeClass, memory);
        }
    }

    // ---- user buffers handed to I/O calls ----

    /**
     * Checks a user buffer for an I/O call on the calling worker. The caller checks the rest of its arguments,
     * then marks the buffer in flight ({@link PooledBuffer#markInFlight()}) and admits the request that will land
     * it.
     *
     * @param buffer what the caller passed
     * @param at where in it the transfer starts
     * @param length bytes to move
     * @param call the call, for messages
     * @return the buffer
     */
    static PooledBuffer check(IoBuffer buffer, int at, int length, String call) {
        java.util.Objects.requireNonNull(buffer, "buffer");
        if (!(buffer instanceof PooledBuffer)) {
            throw notPooled(buffer, call);
        }
        return check(Worker.requireCurrent(call), buffer, at, length, call);
    }

    private static IllegalArgumentException notPooled(IoBuffer buffer, String call) {
        return new IllegalArgumentException(call + " needs a buffer from BufferPool.allocate, was "
                + buffer.getClass().getName());
    }

    /**
     * {@link #check(IoBuffer, int, int, String)} for a caller that found its worker with {@link Worker#current()}
     * already in this call.
     *
     * @param caller the calling fiber's worker
     * @param buffer the buffer
     * @param at where the transfer starts in the buffer
     * @param length the transfer's length
     * @param call the call, for messages
     * @return the buffer
     */
    public static PooledBuffer check(Worker caller, IoBuffer buffer, int at, int length, String call) {
        java.util.Objects.requireNonNull(buffer, "buffer");
        if (!(buffer instanceof PooledBuffer pooled)) {
            throw notPooled(buffer, call);
        }
        WorkerBuffers pool = pooled.pool;
        if (caller != pool.owner) {
            throw new IllegalArgumentException(call + " on " + caller + " was given " + pooled + ", a buffer of "
                    + (caller.engine() == pool.owner.engine() ? pool.owner : pool.owner + " of another runner")
                    + ": a buffer serves I/O only on the worker that allocated it");
        }
        if (pooled.memory == null || pooled.releaseRequested) {
            throw new ClosedException(call + " was given " + pooled + ", which is released");
        }
        if (pooled.inFlight) {
            throw new IllegalStateException(call + " was given " + pooled
                    + ", which an operation still has in flight");
        }
        if (at < 0 || length < 0 || (long) at + length > pooled.capacity) {
            throw new IllegalArgumentException(call + ": range [" + at + ", " + at + " + " + length
                    + ") does not fit " + pooled + " (capacity " + pooled.capacity + ")");
        }
        return pooled;
    }

    /**
     * The kernel let go of a lent buffer (its request completed or retired): its holder has it back, or it
     * returns to the pool if the holder released it meanwhile. Worker only; runs inside the critical section
     * (no user code).
     *
     * @param buffer the buffer
     */
    void landed(PooledBuffer buffer) {
        assert buffer.inFlight : buffer + " landed but was not lent to the kernel";
        buffer.inFlight = false;
        if (buffer.releaseRequested) {
            reclaim(buffer);
        }
    }

    /**
     * The ring failed while the kernel held this lent buffer: it may still write the memory, so the memory is
     * never freed — nor is the pool's arena. The buffer counts as released.
     *
     * @param buffer the buffer
     */
    void abandon(PooledBuffer buffer) {
        abandoned = true;
        removeHandedOut(buffer);
        buffer.memory = null;
        buffer.ownArena = null;
    }

    /** The holder's {@link PooledBuffer#close()}. */
    void release(PooledBuffer buffer) {
        if (buffer.memory == null) {
            return;
        }
        checkOwner("IoBuffer.close");
        if (buffer.inFlight) {
            buffer.releaseRequested = true;
        } else {
            reclaim(buffer);
        }
    }

    MemorySegment segment(PooledBuffer buffer) {
        if (buffer.memory == null) {
            throw new ClosedException(buffer + " is released");
        }
        if (buffer.releaseRequested) {
            throw new ClosedException(buffer + " is released (its memory returns to the pool when the kernel"
                    + " lets it go)");
        }
        checkOwner("IoBuffer.segment");
        if (buffer.inFlight) {
            throw new IllegalStateException(buffer + " is in flight: the kernel may be using it");
        }
        return buffer.memory;
    }

    private void reclaim(PooledBuffer buffer) {
        assert !buffer.inFlight : buffer + " returns to the pool while the kernel may use it";
        removeHandedOut(buffer);
        MemorySegment memory = buffer.memory;
        buffer.memory = null;
        if (buffer.ownArena != null) {
            buffer.ownArena.close();
            buffer.ownArena = null;
        } else {
            give(memory);
        }
    }

    private void removeHandedOut(PooledBuffer buffer) {
        assert buffer.index >= 0 && buffer.index < handedOutCount && handedOut[buffer.index] == buffer
                : buffer + " is not handed out at its index " + buffer.index + " of " + handedOutCount;
        int last = --handedOutCount;
        PooledBuffer moved = handedOut[last];
        handedOut[buffer.index] = moved;
        moved.index = buffer.index;
        handedOut[last] = null;
        buffer.index = -1;
    }

    /**
     * The worker retired: every request has let go of its memory (or was abandoned). Releases every buffer
     * still handed out and frees the pool's memory, unless the kernel may still write some of it. Worker only.
     */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        while (handedOutCount > 0) {
            PooledBuffer buffer = handedOut[handedOutCount - 1];
            if (buffer.inFlight) {
                // Only an abandoned ring leaves a request holding a buffer past retirement.
                abandon(buffer);
            } else {
                reclaim(buffer);
            }
        }
        Arrays.fill(freeCount, 0);
        for (MemorySegment[] list : free) {
            Arrays.fill(list, null);
        }
        if (!abandoned && arena != null) {
            arena.close();
            owner.metrics().bufferBytes(-reservedBytes);
            reservedBytes = 0;
        }
    }
}
