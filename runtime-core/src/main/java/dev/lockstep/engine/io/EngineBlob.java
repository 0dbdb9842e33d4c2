package dev.lockstep.engine.io;

import dev.lockstep.Blob;
import dev.lockstep.BlobMisalignedException;
import dev.lockstep.IoBuffer;
import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.ReadOptions;
import dev.lockstep.WriteOptions;
import dev.lockstep.engine.Engine;
import dev.lockstep.engine.buffer.PooledBuffer;
import dev.lockstep.engine.buffer.WorkerBuffers;
import dev.lockstep.engine.request.ChannelOperation;
import dev.lockstep.engine.request.Completed;
import dev.lockstep.engine.request.Immediate;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.task.Fiber;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.worker.InlineTurns;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Ring;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link Blob} over a shared fd: reads and writes are ring requests that loop over short transfers, syncs
 * hold the open's {@link DurabilityPermit}. Thread-safe: calls may come from fibers of any worker; each call
 * registers on the caller's worker.
 *
 * <p>Reads and writes move bytes through page-aligned memory of the caller's worker: the caller's own
 * {@link IoBuffer} for the buffer calls, a pooled copy for the {@code byte[]} calls (one path, and aligned
 * for direct I/O either way).
 *
 * <p>This class checks each call and admits the request it builds: {@link BlobReadRequest}, {@link BlobWriteRequest},
 * {@link BlobSyncRequest} and {@link BlobExtentRequest} (resize, allocate). What a write leaves for the next sync
 * ({@link #wrote}, the {@link DurabilityPermit}) is kept here, where both kinds of request reach it.
 */
public final class EngineBlob implements Blob {
    private final Engine engine;
    private final SharedFd fd;
    private final String name;
    private final DurabilityPermit permit = new DurabilityPermit();
    private final AtomicLong length;
    /**
     * Bytes written through this open since the last flush was submitted: what the next one makes durable, for its
     * {@link SyncEvent}. Added to by the worker completing a write, taken by the one submitting a flush.
     */
    private final AtomicLong writtenSinceFlush = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The direct I/O alignment, or 0 for a blob opened through the page cache. */
    private final int alignment;
    /**
     * Whether reads still ask the page cache at the call ({@link #readCached}); cleared for good when the kernel
     * says the file cannot answer that way. Written and read by fibers of any worker: a plain flag, since a
     * stale true only costs one more refused question.
     */
    private boolean readsInPlace = true;

    EngineBlob(Engine engine, SharedFd fd, String name, long length, boolean startsDirty, int alignment) {
        this.engine = engine;
        this.alignment = alignment;
        this.fd = fd;
        this.name = name;
        this.length = new AtomicLong(length);
        engine.own(fd, this::close);
        if (startsDirty) {
            permit.markDirty();
        }
    }

    public DurabilityPermit permit() {
        return permit;
    }

    SharedFd fd() {
        return fd;
    }

    String name() {
        return name;
    }

    /**
     * {@code bytes} more were written through this open, up to {@code end}: counted for the next flush, the length
     * grown to {@code end}, the open dirty. Called by the worker completing a write.
     */
    void wrote(int bytes, long end) {
        writtenSinceFlush.addAndGet(bytes);
        length.accumulateAndGet(end, Math::max);
        permit.markDirty();
    }

    /** The bytes written since the last flush was submitted, now counted for the one submitting. */
    long takeWrittenSinceFlush() {
        return writtenSinceFlush.getAndSet(0);
    }

    /** A resize to {@code newLength} ran. */
    void resized(long newLength) {
        length.set(newLength);
    }

    /** A preallocation up to {@code end} ran: the length grows to it. */
    void extendedTo(long end) {
        length.accumulateAndGet(end, Math::max);
    }

    private Worker worker(String call) {
        if (closed.get()) {
            throw new ClosedException("blob '" + name + "' is closed: " + call + " refused");
        }
        Worker worker = Worker.current();
        // The failure's message is built only on failure: a concatenation per call otherwise.
        return worker != null ? worker : Worker.requireCurrent("Blob." + call);
    }

    private static void checkRange(long offset, long count, String what) {
        if (offset < 0) {
            throw new IllegalArgumentException(what + " offset must not be negative, was " + offset);
        }
        if (count < 0) {
            throw new IllegalArgumentException(what + " length must not be negative, was " + count);
        }
        if (offset + count < 0) {
            throw new IllegalArgumentException(what + " offset " + offset + " + length " + count + " overflows");
        }
    }

    @Override
    public Operation<byte[]> readAt(long offset, int count, ReadOptions options) {
        java.util.Objects.requireNonNull(options, "options");
        checkRange(offset, count, "read");
        if (count > MAX_TRANSFER_BYTES) {
            throw new IllegalArgumentException("read length must be at most Blob.MAX_TRANSFER_BYTES ("
                    + MAX_TRANSFER_BYTES + "), was " + count);
        }
        Worker worker = worker("readAt");
        checkAligned(offset, count, 0, null, "read");
        if (count == 0) {
            return worker.register(new Immediate("empty read of '" + name + "'", () -> new byte[0]));
        }
        if (!options.dontCache() && WorkerBuffers.pooled(count) && mayReadInPlace(worker, Fibers.current())) {
            MemorySegment copy = worker.buffers().take(count);
            try {
                if (readCached(worker, copy, 0, count, offset)) {
                    byte[] bytes = new byte[count];
                    MemorySegment.copy(copy, ValueLayout.JAVA_BYTE, 0, bytes, 0, count);
                    return Completed.of(worker, bytes);
                }
            } finally {
                worker.buffers().give(copy);
            }
        }
        return worker.registerCurrent(BlobReadRequest.of(this, worker, offset, count, options.dontCache(), null, 0));
    }

    @Override
    public Operation<Void> readInto(long offset, IoBuffer into, int at, int count) {
        Operation<Void> operation = readInto(offset, into, at, count, null, false, Fibers.current());
        return operation != null ? operation : Completed.done(Worker.current());
    }

    @Override
    public void readFully(long offset, IoBuffer into, int at, int count) {
        // One look-up of the calling fiber, for the loan and for the read at the call alike.
        Fiber fiber = Fibers.current();
        Registration<Object> reuse = fiber == null ? null : fiber.takeReusable();
        try {
            Registration.awaitAndClose(readInto(offset, into, at, count, reuse, true, fiber));
        } finally {
            Registration.giveBack(reuse);
        }
    }

    /**
     * {@link #readInto(long, IoBuffer, int, int)}, admitted with {@code reuse} when it is not null; null when the
     * bytes were read at the call ({@link #readCached}) or none were asked for and {@code fully} says the caller
     * makes no operation for that. {@code fiber} is the calling fiber ({@link Fibers#current()}), or null.
     */
    private Operation<Void> readInto(long offset, IoBuffer into, int at, int count, Registration<?> reuse,
                                     boolean fully, Fiber fiber) {
        checkRange(offset, count, "read");
        if (count > MAX_TRANSFER_BYTES) {
            throw new IllegalArgumentException("read length must be at most Blob.MAX_TRANSFER_BYTES ("
                    + MAX_TRANSFER_BYTES + "), was " + count);
        }
        Worker worker = worker("readInto");
        PooledBuffer buffer = WorkerBuffers.check(worker, into, at, count, "Blob.readInto");
        checkAligned(offset, count, at, buffer, "read");
        if (count == 0) {
            return fully ? null : worker.register(new Immediate("empty read of '" + name + "'", () -> null));
        }
        if (mayReadInPlace(worker, fiber) && readCached(worker, buffer.memory(), at, count, offset)) {
            return null;
        }
        // The request (and with it the fd reference) first: a blob closed meanwhile throws there, with the buffer
        // still the caller's; marked in flight before, it would stay so, unusable, and hold its pool past retirement.
        BlobReadRequest request = BlobReadRequest.of(this, worker, offset, count, false, buffer, at);
        buffer.markInFlight();
        return worker.registerCurrent(request, reuse);
    }

    /**
     * Whether a read may first ask the page cache at the call ({@link #readCached}): a blob opened through the
     * page cache, on a ring that can answer ({@link Ring#readsWithoutWaiting}: runtime-uring's and the
     * simulator's) and a kernel that has not refused the question for this file, by a task that was not aborted on
     * a worker that is not closing (whose await must throw without the read having run, as a queued request's
     * does), while the worker has turns in place left ({@link InlineTurns#takeInPlace}: a fiber that never parks
     * must not hold its worker's timers and other fibers back). {@code fiber} is the caller's ({@link Fibers#current()}), or null.
     */
    private boolean mayReadInPlace(Worker worker, Fiber fiber) {
        if (alignment != 0 || !readsInPlace || !worker.ring().readsWithoutWaiting() || worker.isClosing()) {
            return false;
        }
        // Last: a read answered at the call does not park, so it takes one of the worker's in-place turns.
        return fiber != null && !fiber.isAborted() && worker.inlineTurns().takeInPlace();
    }

    /**
     * Asks the page cache for all {@code count} bytes at the call, on the calling fiber's worker thread, without
     * waiting for a device ({@link Ring#readWithoutWaiting}): true if it gave every byte. Anything else — a page
     * not cached, a short read at the end of the blob, an error, an fd being closed — is left to the ring read
     * that the caller then makes, which reads the whole range again and reports it as it always does, so both
     * runtimes answer the same (in the simulator, its seed decides whether the pages are cached). What this saves
     * on a hit is the ring's round trip and the request's bookkeeping: the result is known before the operation
     * is made.
     */
    private boolean readCached(Worker worker, MemorySegment memory, long at, int count, long offset) {
        if (!fd.tryAcquire()) {
            return false;
        }
        int result;
        try {
            result = worker.ring().readWithoutWaiting(fd.fd(), memory, at, count, offset);
        } finally {
            fd.release();
        }
        if (result == -Errno.EOPNOTSUPP || result == -Errno.EINVAL) {
            readsInPlace = false; // this file (or kernel) does not answer without waiting: stop asking
        }
        if (result == count) {
            worker.metrics().readInPlace(count);
            return true;
        }
        return false;
    }

    @Override
    public Operation<Void> writeFrom(long offset, IoBuffer from, int at, int count, WriteOptions options) {
        return writeFrom(offset, from, at, count, options, null);
    }

    @Override
    public void writeFully(long offset, IoBuffer from, int at, int count, WriteOptions options) {
        Registration<Object> reuse = Fibers.lendReusable();
        try {
            Registration.awaitAndClose(writeFrom(offset, from, at, count, options, reuse));
        } finally {
            Registration.giveBack(reuse);
        }
    }

    /** {@link #writeFrom(long, IoBuffer, int, int, WriteOptions)}, admitted with {@code reuse} when not null. */
    private Operation<Void> writeFrom(long offset, IoBuffer from, int at, int count, WriteOptions options,
                                      Registration<?> reuse) {
        java.util.Objects.requireNonNull(options, "options");
        checkRange(offset, count, "write");
        if (count > MAX_TRANSFER_BYTES) {
            throw new IllegalArgumentException("write length must be at most Blob.MAX_TRANSFER_BYTES ("
                    + MAX_TRANSFER_BYTES + "), was " + count);
        }
        Worker worker = worker("writeFrom");
        PooledBuffer buffer = WorkerBuffers.check(worker, from, at, count, "Blob.writeFrom");
        checkAligned(offset, count, at, buffer, "write");
        if (count == 0) {
            return worker.register(new Immediate("empty write of '" + name + "'", () -> null));
        }
        // The request (and with it the fd reference) first, as in readInto: a blob closed meanwhile throws there.
        BlobWriteRequest request = BlobWriteRequest.of(this, worker, offset, count, options);
        buffer.markInFlight();
        permit.markDirty();
        request.lend(buffer, at);
        return worker.registerCurrent(request, reuse);
    }

    @Override
    public int directAlignment() {
        return alignment;
    }

    /**
     * Refuses a misaligned transfer of a direct-I/O blob at the call, as the kernel would refuse it with
     * {@code EINVAL} (both runtimes check here, so neither kernel sees one).
     */
    private void checkAligned(long offset, long count, int at, PooledBuffer buffer, String what) {
        if (alignment == 0) {
            return;
        }
        long mask = alignment - 1;
        String where = what + " of " + count + " bytes at offset " + offset + " of direct-I/O blob '" + name + "'";
        if ((offset & mask) != 0) {
            throw new BlobMisalignedException(where + ": offset " + offset + " is not a multiple of the direct I/O"
                    + " alignment " + alignment);
        }
        if ((count & mask) != 0) {
            throw new BlobMisalignedException(where + ": length " + count + " is not a multiple of the direct I/O"
                    + " alignment " + alignment);
        }
        if (buffer != null && ((buffer.memory().address() + at) & mask) != 0) {
            throw new BlobMisalignedException(where + ": buffer position " + at + " does not start at a multiple"
                    + " of the direct I/O alignment " + alignment + " (pool buffers start page-aligned)");
        }
    }

    @Override
    public Operation<Void> writeAt(long offset, byte[][] chunks, WriteOptions options) {
        java.util.Objects.requireNonNull(chunks, "chunks");
        java.util.Objects.requireNonNull(options, "options");
        long total = 0;
        for (byte[] chunk : chunks) {
            total += java.util.Objects.requireNonNull(chunk, "chunk").length;
        }
        checkRange(offset, total, "write");
        if (total > MAX_TRANSFER_BYTES) {
            throw new IllegalArgumentException("write length must be at most Blob.MAX_TRANSFER_BYTES ("
                    + MAX_TRANSFER_BYTES + "), was " + total);
        }
        Worker worker = worker("writeAt");
        checkAligned(offset, total, 0, null, "write");
        if (total == 0) {
            // An empty write, SYNC or not, changes nothing: it must not extend the blob.
            return worker.register(new Immediate("empty write of '" + name + "'", () -> null));
        }
        BlobWriteRequest request = BlobWriteRequest.of(this, worker, offset, (int) total, options);
        request.copy(worker, chunks);
        permit.markDirty();
        return worker.registerCurrent(request);
    }

    @Override
    public Operation<Void> resize(long newLength) {
        checkRange(newLength, 0, "resize");
        Worker worker = worker("resize");
        // Not dirty yet: the ftruncate runs later, in the kernel. Marking the open dirty now would let a sync
        // admitted in between (on another worker) take the flag and flush before the truncate, after which the
        // next sync would find the open clean and skip the kernel. The request marks it when it ran.
        return worker.register(BlobExtentRequest.resize(this, newLength));
    }

    @Override
    public Operation<Void> allocate(long offset, long count) {
        checkRange(offset, count, "allocate");
        if (count == 0) {
            throw new IllegalArgumentException("allocate length must be positive, was 0 (at offset " + offset
                    + " of blob '" + name + "')");
        }
        Worker worker = worker("allocate");
        // Not dirty yet, as in resize: the request marks the open dirty once the fallocate ran.
        return worker.register(BlobExtentRequest.allocate(this, offset, count));
    }

    @Override
    public Operation<Void> sync() {
        Worker worker = worker("sync");
        return worker.register(new BlobSyncRequest(this));
    }

    @Override
    public Operation<Void> startSync() {
        Worker worker = worker("startSync");
        return new ChannelOperation<>(worker.registerDetached(new BlobSyncRequest(this)));
    }

    @Override
    public long length() {
        return length.get();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            fd.release();
        }
    }

    @Override
    public String toString() {
        return "Blob(" + name + ")";
    }
}
