package dev.lockstep.engine;

import dev.lockstep.Blob;
import dev.lockstep.BlobInsufficientLengthException;
import dev.lockstep.BlobMisalignedException;
import dev.lockstep.IoBuffer;
import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.ReadOptions;
import dev.lockstep.StorageIoException;
import dev.lockstep.WriteOptions;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
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
 * <p>Just over 600 lines: each public call is short, but the contract of each (ranges, short transfers, direct
 * I/O alignment, the durability permit) is written at it; the requests they build are nested classes that
 * only this blob uses.
 */
final class EngineBlob implements Blob {
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

    DurabilityPermit permit() {
        return permit;
    }

    private Worker worker(String call) {
        if (closed.get()) {
            throw new ClosedException("blob '" + name + "' is closed: " + call + " refused");
        }
        Worker worker = Worker.current();
        // The failure's message is built only on failure: a concatenation per call otherwise.
        return worker != null ? worker : EngineContext.currentWorker("Blob." + call);
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
        return worker.registerCurrent(ReadRequest.of(this, worker, offset, count, options.dontCache(), null, 0));
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
        if (mayReadInPlace(worker, fiber) && readCached(worker, buffer.memory, at, count, offset)) {
            return null;
        }
        // The request (and with it the fd reference) first: a blob closed meanwhile throws there, with the buffer
        // still the caller's; marked in flight before, it would stay so, unusable, and hold its pool past retirement.
        ReadRequest request = ReadRequest.of(this, worker, offset, count, false, buffer, at);
        buffer.inFlight = true;
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
        WriteRequest request = WriteRequest.of(this, worker, offset, count, options);
        buffer.inFlight = true;
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
        if (buffer != null && ((buffer.memory.address() + at) & mask) != 0) {
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
        WriteRequest request = WriteRequest.of(this, worker, offset, (int) total, options);
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
        return worker.register(new ResizeRequest(fd.acquire(), newLength));
    }

    /**
     * A resize: an {@code ftruncate} through the ring ({@link Opcode#FTRUNCATE}), so it never blocks the worker.
     * Retained work, like a write: closing its operation does not stop it.
     */
    private final class ResizeRequest extends RingRequest {
        private final long newLength;

        ResizeRequest(SharedFd file, long newLength) {
            super(file);
            this.newLength = newLength;
        }

        @Override
        public boolean retained() {
            return true;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            submission.opcode = Opcode.FTRUNCATE;
            submission.fd = file.fd();
            submission.offset = newLength;
        }

        @Override
        public boolean complete(int result) {
            if (isTransient(result)) {
                return false;
            }
            // Dirty once the truncate ran (like a write at its completion), so every sync admitted after this
            // resize completed reaches the kernel. A failed truncate may have changed the file too.
            permit.markDirty();
            if (result < 0) {
                return fail(EngineStorage.translate(new KernelException(-result, "ftruncate", name), describe()));
            }
            length.set(newLength);
            return succeed(null);
        }

        @Override
        public String describe() {
            return "resize of '" + name + "' to " + newLength;
        }
    }

    @Override
    public Operation<Void> sync() {
        Worker worker = worker("sync");
        return worker.register(new SyncRequest(fd.acquire()));
    }

    @Override
    public Operation<Void> startSync() {
        Worker worker = worker("startSync");
        return new ChannelOperation<>(worker.registerDetached(new SyncRequest(fd.acquire())));
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

    /**
     * A read of exactly {@code count} bytes, resubmitted after short reads: into the caller's buffer, or into a
     * pooled copy returned as a new array. Reused through its worker's {@link Worker#blobReads} once retired.
     */
    static final class ReadRequest extends RingRequest {
        private final Worker home;
        private final WorkerBuffers pool;
        private EngineBlob blob;
        private long offset;
        private int count;
        /** The caller's memory, or null for a {@code byte[]} read (which reads into a pooled copy at 0). */
        private MemorySegment target;
        /** Where in {@link #target} the bytes go. */
        private int at;
        /** The page-cache hint; dropped after the file system refuses it, since it never changes the result. */
        private boolean dontCache;
        private int done;

        private ReadRequest(Worker home) {
            super(null);
            this.home = home;
            this.pool = home.buffers();
        }

        /** A read of {@code blob} on {@code worker}, the calling fiber's: a retired one of the worker's, or new. */
        static ReadRequest of(EngineBlob blob, Worker worker, long offset, int count, boolean dontCache,
                              PooledBuffer into, int at) {
            SharedFd held = blob.fd.acquire(); // before a recycled request is taken: a closed blob throws here
            ReadRequest request = worker.blobReads.take();
            if (request == null) {
                request = new ReadRequest(worker);
            }
            request.reuse(held);
            request.blob = blob;
            request.offset = offset;
            request.count = count;
            request.dontCache = dontCache;
            request.lent = into;
            request.target = into == null ? null : into.memory;
            request.at = at;
            request.done = 0;
            return request;
        }

        /** A read through the page cache usually finds its pages there; a direct read always waits for the device. */
        @Override
        public boolean completesAtSubmission() {
            return blob.directAlignment() == 0;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            submission.opcode = Opcode.READ;
            submission.fd = file.fd();
            // The submission's length bounds the transfer: slice (an allocation) only past the memory's start.
            submission.buffer = slicedFrom(target != null ? target : pooledBuffer(pool, count), at + done);
            submission.length = count - done;
            submission.offset = offset + done;
            submission.rwFlags = dontCache ? Submission.RWF_DONTCACHE : 0;
        }

        @Override
        WorkerMetrics.Kind meterKind() {
            return WorkerMetrics.Kind.READ;
        }

        @Override
        public boolean complete(int result) {
            if (isTransient(result)) {
                return false;
            }
            if (result == -Errno.EOPNOTSUPP && dontCache) {
                dontCache = false;
                return false;
            }
            if (result < 0) {
                landLent();
                return fail(EngineStorage.translate(new KernelException(-result, "read", blob.name), describe()));
            }
            if (result == 0) {
                landLent();
                return fail(new BlobInsufficientLengthException("read of " + count + " bytes at offset " + offset
                        + " of blob '" + blob.name + "' goes past its end at " + (offset + done)));
            }
            done += result;
            if (done < count) {
                return false;
            }
            if (target != null) {
                landLent();
                return succeed(null);
            }
            byte[] bytes = new byte[count];
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 0, bytes, 0, count);
            return succeed(bytes);
        }

        @Override
        public void release(Ring ring) {
            super.release(ring);
            target = null;
            if (reusable()) {
                home.blobReads.give(this);
            }
        }

        @Override
        public String describe() {
            return "read of " + count + " bytes at offset " + offset + " of blob '" + blob.name + "'";
        }
    }

    /**
     * A write of every byte, resubmitted after short writes; retained work that closing never cancels. From the
     * caller's buffer, or from a pooled copy of the {@code byte[]} chunks. Reused through its worker's
     * {@link Worker#blobWrites} once retired.
     */
    static final class WriteRequest extends OutboundRequest {
        private final Worker home;
        private EngineBlob blob;
        private long offset;
        /** The write options; the page-cache hint is dropped after the file system refuses it. */
        private WriteOptions options;

        private WriteRequest(Worker home) {
            this.home = home;
        }

        /** A write to {@code blob} on {@code worker}, the calling fiber's: a retired one of the worker's, or new. */
        static WriteRequest of(EngineBlob blob, Worker worker, long offset, int count, WriteOptions options) {
            SharedFd held = blob.fd.acquire(); // before a recycled request is taken: a closed blob throws here
            WriteRequest request = worker.blobWrites.take();
            if (request == null) {
                request = new WriteRequest(worker);
            }
            request.start(held, count);
            request.blob = blob;
            request.offset = offset;
            request.options = options;
            return request;
        }

        @Override
        public boolean retained() {
            return true;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            submission.opcode = Opcode.WRITE;
            submission.fd = file.fd();
            submission.buffer = remaining();
            submission.length = count - done;
            submission.offset = offset + done;
            submission.rwFlags = (options.sync() ? Submission.RWF_DSYNC : 0)
                    | (options.dontCache() ? Submission.RWF_DONTCACHE : 0);
        }

        @Override
        WorkerMetrics.Kind meterKind() {
            return WorkerMetrics.Kind.WRITE;
        }

        @Override
        public boolean complete(int result) {
            if (isTransient(result)) {
                return false;
            }
            if (result == -Errno.EOPNOTSUPP && options.dontCache()) {
                // The hint is best effort: a refused attempt wrote nothing, so retry without it.
                options = options.without(WriteOptions.DONT_CACHE);
                return false;
            }
            if (result < 0) {
                blob.permit.markDirty();
                landLent();
                dev.lockstep.StorageException failure = EngineStorage.translate(
                        new KernelException(-result, "write", blob.name),
                        describe() + " (" + done + " bytes written before the failure may persist)");
                if (result == -Errno.EIO && options.sync()) {
                    // RWF_DSYNC's flush failed: Linux reported the writeback error to this call and marked the
                    // pages clean, so a later fdatasync of the open would succeed without them (Blob's class doc).
                    blob.permit.poison(String.valueOf(failure.getMessage()));
                }
                return fail(failure);
            }
            if (result == 0) {
                landLent();
                return fail(new StorageIoException(describe() + ": the kernel wrote nothing"));
            }
            done += result;
            blob.writtenSinceFlush.addAndGet(result);
            blob.length.accumulateAndGet(offset + done, Math::max);
            blob.permit.markDirty();
            if (done < count) {
                return false;
            }
            landLent();
            return succeed(null);
        }

        @Override
        public void release(Ring ring) {
            super.release(ring);
            if (reusable()) {
                home.blobWrites.give(this);
            }
        }

        @Override
        public String describe() {
            return "write of " + count + " bytes at offset " + offset + " of blob '" + blob.name + "'";
        }
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
        return worker.register(new AllocateRequest(fd.acquire(), offset, count));
    }

    /**
     * A preallocation: an {@code fallocate} through the ring ({@link Opcode#FALLOCATE}), so it never blocks the
     * worker. Retained work, like a resize.
     */
    private final class AllocateRequest extends RingRequest {
        private final long offset;
        private final long count;

        AllocateRequest(SharedFd file, long offset, long count) {
            super(file);
            this.offset = offset;
            this.count = count;
        }

        @Override
        public boolean retained() {
            return true;
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            submission.opcode = Opcode.FALLOCATE;
            submission.fd = file.fd();
            submission.offset = offset;
            submission.rangeLength = count;
        }

        @Override
        public boolean complete(int result) {
            if (isTransient(result)) {
                return false;
            }
            // Dirty once the fallocate ran, as a resize marks it, so the next sync reaches the kernel. A failed one
            // may have changed the file too: ext4 keeps the blocks (and the size) it got before ENOSPC.
            permit.markDirty();
            if (result < 0) {
                return fail(EngineStorage.translate(new KernelException(-result, "fallocate", name), describe()));
            }
            length.accumulateAndGet(offset + count, Math::max);
            return succeed(null);
        }

        @Override
        public String describe() {
            return "allocation of " + count + " bytes at offset " + offset + " of blob '" + name + "'";
        }
    }

    /** A sync holding the open's durability permit; needs no kernel call when nothing was written. */
    private final class SyncRequest extends RingRequest {
        /** The ring it went to, and when ({@link Ring#measureNanos}), at its first submission; null before. */
        private Ring submittedTo;
        private long submittedNanos;
        /** Bytes written since the previous flush, taken at the first submission. */
        private long bytes;
        /** The JFR event, begun at the first submission when recorded; null otherwise. */
        private SyncEvent event;

        SyncRequest(SharedFd file) {
            super(file);
        }

        @Override
        public boolean retained() {
            return true;
        }

        @Override
        public DurabilityPermit permit() {
            return permit;
        }

        @Override
        public boolean completeWithoutKernel() {
            String poisoned = permit.failure();
            if (poisoned != null) {
                // A flush of this open failed before: what it dropped is gone from what a flush would write,
                // so this sync cannot make the writes it covers durable (another writer's sync failing does not
                // tell this one). Blob's class doc: the open is poisoned.
                return fail(new StorageIoException(describe() + " refused: an earlier sync of this open failed ("
                        + poisoned + "), and data it lost cannot be made durable through this open"));
            }
            return !permit.takeDirty() && succeed(null);
        }

        @Override
        public void prepare(Submission submission, Ring ring) {
            submission.opcode = Opcode.FSYNC;
            submission.fd = file.fd();
            submission.flags = Submission.FSYNC_DATASYNC;
            if (submittedTo == null) {
                // Only the first submission: a flush the kernel interrupted (EINTR) is timed from its first try.
                submittedTo = ring;
                submittedNanos = ring.measureNanos();
                bytes = writtenSinceFlush.getAndSet(0);
                SyncEvent recorded = new SyncEvent();
                if (recorded.isEnabled()) {
                    recorded.begin();
                    event = recorded;
                }
            }
        }

        /** The flush ended ({@code result} 0 or {@code -errno}): counted and timed on the completing worker. */
        private void measured(int result) {
            Worker worker = Worker.current();
            if (worker != null && submittedTo != null) {
                worker.metrics().synced(submittedTo.measureNanos() - submittedNanos);
            }
            SyncEvent recorded = event;
            event = null;
            if (recorded != null) {
                recorded.end();
                if (recorded.shouldCommit()) {
                    recorded.blob = name;
                    recorded.bytes = bytes;
                    recorded.worker = worker == null ? -1 : worker.index();
                    recorded.error = result < 0 ? Errno.describe(-result) : null;
                    recorded.commit();
                }
            }
        }

        @Override
        public boolean complete(int result) {
            if (isTransient(result)) {
                return false;
            }
            measured(result);
            if (result < 0) {
                // What this flush dropped cannot be made durable through this open any more: the open is
                // poisoned, and every later sync of it is refused (Blob's class doc).
                permit.markDirty();
                dev.lockstep.StorageException failure = EngineStorage.translate(
                        new KernelException(-result, "fdatasync", name), describe());
                permit.poison(String.valueOf(failure.getMessage()));
                return fail(failure);
            }
            return succeed(null);
        }

        @Override
        public String describe() {
            return "sync of blob '" + name + "'";
        }

    }
}
