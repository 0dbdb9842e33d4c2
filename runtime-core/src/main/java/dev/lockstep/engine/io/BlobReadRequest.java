package dev.lockstep.engine.io;

import dev.lockstep.BlobInsufficientLengthException;
import dev.lockstep.engine.buffer.PooledBuffer;
import dev.lockstep.engine.buffer.WorkerBuffers;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.engine.worker.WorkerMetrics;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A read of exactly {@code count} bytes, resubmitted after short reads: into the caller's buffer, or into a
 * pooled copy returned as a new array. Reused through its worker's
 * {@link dev.lockstep.engine.worker.RetiredRequests#give(BlobReadRequest)} once retired.
 */
public final class BlobReadRequest extends RingRequest {
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

    private BlobReadRequest(Worker home) {
        super(null);
        this.home = home;
        this.pool = home.buffers();
    }

    /** A read of {@code blob} on {@code worker}, the calling fiber's: a retired one of the worker's, or new. */
    static BlobReadRequest of(EngineBlob blob, Worker worker, long offset, int count, boolean dontCache,
                                  PooledBuffer into, int at) {
        SharedFd held = blob.fd().acquire(); // before a recycled request is taken: a closed blob throws here
        BlobReadRequest request = worker.retired().blobRead();
        if (request == null) {
            request = new BlobReadRequest(worker);
        }
        request.reuse(held);
        request.blob = blob;
        request.offset = offset;
        request.count = count;
        request.dontCache = dontCache;
        request.lent = into;
        request.target = into == null ? null : into.memory();
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
    protected WorkerMetrics.Kind meterKind() {
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
            return fail(EngineStorage.translate(new KernelException(-result, "read", blob.name()), describe()));
        }
        if (result == 0) {
            landLent();
            return fail(new BlobInsufficientLengthException("read of " + count + " bytes at offset " + offset
                    + " of blob '" + blob.name() + "' goes past its end at " + (offset + done)));
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
            home.retired().give(this);
        }
    }

    @Override
    public String describe() {
        return "read of " + count + " bytes at offset " + offset + " of blob '" + blob.name() + "'";
    }
}
