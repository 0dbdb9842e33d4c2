package dev.lockstep.engine;

import dev.lockstep.StorageIoException;
import dev.lockstep.WriteOptions;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;

/**
 * A write of every byte, resubmitted after short writes; retained work that closing never cancels. From the
 * caller's buffer, or from a pooled copy of the {@code byte[]} chunks. Reused through its worker's
 * {@link Worker#blobWrites} once retired.
 */
final class BlobWriteRequest extends OutboundRequest {
    private final Worker home;
    private EngineBlob blob;
    private long offset;
    /** The write options; the page-cache hint is dropped after the file system refuses it. */
    private WriteOptions options;

    private BlobWriteRequest(Worker home) {
        this.home = home;
    }

    /** A write to {@code blob} on {@code worker}, the calling fiber's: a retired one of the worker's, or new. */
    static BlobWriteRequest of(EngineBlob blob, Worker worker, long offset, int count, WriteOptions options) {
        SharedFd held = blob.fd().acquire(); // before a recycled request is taken: a closed blob throws here
        BlobWriteRequest request = worker.blobWrites.take();
        if (request == null) {
            request = new BlobWriteRequest(worker);
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
            blob.permit().markDirty();
            landLent();
            dev.lockstep.StorageException failure = EngineStorage.translate(
                    new KernelException(-result, "write", blob.name()),
                    describe() + " (" + done + " bytes written before the failure may persist)");
            if (result == -Errno.EIO && options.sync()) {
                // RWF_DSYNC's flush failed: Linux reported the writeback error to this call and marked the
                // pages clean, so a later fdatasync of the open would succeed without them (Blob's class doc).
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
        return "write of " + count + " bytes at offset " + offset + " of blob '" + blob.name() + "'";
    }
}
