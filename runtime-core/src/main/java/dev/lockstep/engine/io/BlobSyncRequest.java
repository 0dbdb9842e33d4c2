package dev.lockstep.engine.io;

import dev.lockstep.StorageException;
import dev.lockstep.StorageIoException;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;

/** A sync holding the open's durability permit; needs no kernel call when nothing was written. */
final class BlobSyncRequest extends RingRequest {
    private final EngineBlob blob;
    private final BlobFlush flush = new BlobFlush();

    /** A sync of {@code blob}, holding a reference to its fd: a closed blob throws here. */
    BlobSyncRequest(EngineBlob blob) {
        super(blob.fd().acquire());
        this.blob = blob;
        flush.reset(blob);
    }

    @Override
    public boolean retained() {
        return true;
    }

    @Override
    public DurabilityPermit permit() {
        return blob.permit();
    }

    @Override
    public boolean completeWithoutKernel() {
        StorageIoException refused = flush.refusal(describe());
        if (refused != null) {
            return fail(refused);
        }
        return !flush.needed() && succeed(null);
    }

    @Override
    public void prepare(Submission submission, Ring ring) {
        flush.prepare(submission, ring, file.fd());
    }

    @Override
    public boolean complete(int result) {
        if (isTransient(result)) {
            return false;
        }
        StorageException failure = flush.ended(result, describe());
        return failure == null ? succeed(null) : fail(failure);
    }

    @Override
    public String describe() {
        return "sync of blob '" + blob.name() + "'";
    }
}
