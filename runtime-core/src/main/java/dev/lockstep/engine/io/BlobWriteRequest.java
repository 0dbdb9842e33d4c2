package dev.lockstep.engine.io;

import dev.lockstep.StorageIoException;
import dev.lockstep.WriteOptions;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.engine.worker.WorkerMetrics;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;

/**
 * A write of every byte, resubmitted after short writes; retained work that closing never cancels. From the
 * caller's buffer, or from a pooled copy of the {@code byte[]} chunks. Reused through its worker's
 * {@link dev.lockstep.engine.worker.RetiredRequests#give(BlobWriteRequest)} once retired.
 *
 * <p>A {@code SYNC} write is a plain write and then a sync of its open: once its last byte is written the
 * driver makes it wait for the open's permit as a sync admitted at that moment ({@link #joinGroupSync}), so
 * the flush that completes it is one issued after the write completed, which makes the bytes durable, and
 * one flush completes every sync and {@code SYNC} write waiting for it (group sync, {@link DurabilityPermit}).
 * It is then {@link #flushing}: its submissions, failures and metrics are a sync's ({@link BlobFlush}). The
 * caller's buffer stays in flight until the whole request is done, flush included.
 */
public final class BlobWriteRequest extends OutboundRequest {
    private final Worker home;
    private EngineBlob blob;
    private long offset;
    /** The write options; the page-cache hint is dropped after the file system refuses it. */
    private WriteOptions options;
    /** A SYNC write whose bytes are written, waiting for or making its flush. */
    private boolean flushing;
    /** The flush of a SYNC write, made at its first one and reused. */
    private BlobFlush flush;

    private BlobWriteRequest(Worker home) {
        this.home = home;
    }

    /** A write to {@code blob} on {@code worker}, the calling fiber's: a retired one of the worker's, or new. */
    static BlobWriteRequest of(EngineBlob blob, Worker worker, long offset, int count, WriteOptions options) {
        SharedFd held = blob.fd().acquire(); // before a recycled request is taken: a closed blob throws here
        BlobWriteRequest request = worker.retired().blobWrite();
        if (request == null) {
            request = new BlobWriteRequest(worker);
        }
        request.start(held, count);
        request.blob = blob;
        request.offset = offset;
        request.options = options;
        request.flushing = false;
        return request;
    }

    @Override
    public boolean retained() {
        return true;
    }

    @Override
    public DurabilityPermit permit() {
        return flushing ? blob.permit() : null;
    }

    /**
     * Its bytes are written: a SYNC write becomes a sync of its open admitted now (the driver takes its ticket
     * at this call, after the last byte was written and the open marked dirty by {@link #complete}).
     */
    @Override
    protected DurabilityPermit joinGroupSync() {
        if (!options.sync() || flushing) {
            return null;
        }
        flushing = true;
        clearForReuse(); // the write's success is not the operation's: the flush's is
        if (flush == null) {
            flush = new BlobFlush();
        }
        flush.reset(blob);
        return blob.permit();
    }

    @Override
    public boolean completeWithoutKernel() {
        StorageIoException refused = flush.refusal(describe());
        if (refused != null) {
            landLent();
            return fail(refused);
        }
        if (flush.needed()) {
            return false;
        }
        // Another request took the dirty flag after this write marked it, so its flush, which completed
        // before this one got the permit, was issued after these bytes were written (DurabilityPermit).
        landLent();
        return succeed(null);
    }

    @Override
    protected void coveredByFlush() {
        landLent();
        super.coveredByFlush();
    }

    @Override
    public void prepare(Submission submission, Ring ring) {
        if (flushing) {
            flush.prepare(submission, ring, file.fd());
            return;
        }
        submission.opcode = Opcode.WRITE;
        submission.fd = file.fd();
        submission.buffer = remaining();
        submission.length = count - done;
        submission.offset = offset + done;
        submission.rwFlags = options.dontCache() ? Submission.RWF_DONTCACHE : 0;
        // The engine opens a blob O_DIRECT or through the page cache, never O_DSYNC or O_SYNC.
        submission.flags = blob.directAlignment() == 0 ? Submission.BUFFERED_FILE : 0;
    }

    @Override
    protected WorkerMetrics.Kind meterKind() {
        return flushing ? WorkerMetrics.Kind.SYNC : WorkerMetrics.Kind.WRITE;
    }

    @Override
    public boolean complete(int result) {
        if (isTransient(result)) {
            return false;
        }
        if (flushing) {
            dev.lockstep.StorageException failure = flush.ended(result, describe());
            landLent();
            return failure == null ? succeed(null) : fail(failure);
        }
        if (result == -Errno.EOPNOTSUPP && options.dontCache()) {
            // The hint is best effort: a refused attempt wrote nothing, so retry without it.
            options = options.without(WriteOptions.DONT_CACHE);
            return false;
        }
        if (result < 0) {
            blob.permit().markDirty();
            landLent();
            dev.lockstep.StorageException failure = EngineStorage.translate(
                    new KernelException(-result, "write", blob.name()),
                    describe() + " (" + done + " bytes written before the failure may persist)");
            if (result == -Errno.EIO && options.sync()) {
                // A SYNC write's I/O error poisons the open as a failed flush does (Blob's class doc): what the
                // error dropped may be missing from what a later fdatasync of the open writes.
                blob.permit().poison(String.valueOf(failure.getMessage()));
            }
            return fail(failure);
        }
        if (result == 0) {
            landLent();
            return fail(new StorageIoException(describe() + ": the kernel wrote nothing"));
        }
        done += result;
        blob.wrote(result, offset + done);
        if (done < count) {
            return false;
        }
        if (!options.sync()) {
            landLent(); // a SYNC write keeps the caller's buffer until its flush is done too
        }
        return succeed(null);
    }

    @Override
    public void release(Ring ring) {
        super.release(ring);
        if (reusable()) {
            home.retired().give(this);
        }
    }

    @Override
    public String describe() {
        return (flushing ? "flush of SYNC write of " : options.sync() ? "SYNC write of " : "write of ") + count
                + " bytes at offset " + offset + " of blob '" + blob.name() + "'";
    }
}
