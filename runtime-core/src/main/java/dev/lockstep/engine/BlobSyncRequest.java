package dev.lockstep.engine;

import dev.lockstep.StorageIoException;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;

/** A sync holding the open's durability permit; needs no kernel call when nothing was written. */
final class BlobSyncRequest extends RingRequest {
    private final EngineBlob blob;
    /** The ring it went to, and when ({@link Ring#measureNanos}), at its first submission; null before. */
    private Ring submittedTo;
    private long submittedNanos;
    /** Bytes written since the previous flush, taken at the first submission. */
    private long bytes;
    /** The JFR event, begun at the first submission when recorded; null otherwise. */
    private SyncEvent event;

    /** A sync of {@code blob}, holding a reference to its fd: a closed blob throws here. */
    BlobSyncRequest(EngineBlob blob) {
        super(blob.fd().acquire());
        this.blob = blob;
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
        String poisoned = blob.permit().failure();
        if (poisoned != null) {
            // A flush of this open failed before: what it dropped is gone from what a flush would write,
            // so this sync cannot make the writes it covers durable (another writer's sync failing does not
            // tell this one). Blob's class doc: the open is poisoned.
            return fail(new StorageIoException(describe() + " refused: an earlier sync of this open failed ("
                    + poisoned + "), and data it lost cannot be made durable through this open"));
        }
        return !blob.permit().takeDirty() && succeed(null);
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
            bytes = blob.takeWrittenSinceFlush();
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
                recorded.blob = blob.name();
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
            blob.permit().markDirty();
            dev.lockstep.StorageException failure = EngineStorage.translate(
                    new KernelException(-result, "fdatasync", blob.name()), describe());
            blob.permit().poison(String.valueOf(failure.getMessage()));
            return fail(failure);
        }
        return succeed(null);
    }

    @Override
    public String describe() {
        return "sync of blob '" + blob.name() + "'";
    }
}
