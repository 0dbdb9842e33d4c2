package dev.lockstep.engine.io;

import dev.lockstep.StorageException;
import dev.lockstep.StorageIoException;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;

/**
 * The flush a request makes while it holds its open's {@link DurabilityPermit}: a {@code Blob.sync}, or a
 * {@code WriteOptions.SYNC} write once its bytes are written and it joined its open's group sync. One
 * {@code fdatasync}, counted and timed on the worker that completes it, recorded as a {@link SyncEvent}, and what
 * its failure does to the open (it poisons it). Confined to the request's worker, as the request is; reset with
 * {@link #reset} for each request that reuses it.
 */
final class BlobFlush {
    /** The open blob, and its permit. */
    private EngineBlob blob;
    private DurabilityPermit permit;
    /** The ring it went to, and when ({@link Ring#measureNanos}), at its first submission; null before. */
    private Ring submittedTo;
    private long submittedNanos;
    /** Bytes written since the previous flush, taken at the first submission. */
    private long bytes;
    /** The JFR event, begun at the first submission when recorded; null otherwise. */
    private SyncEvent event;

    /** A flush of {@code blob}'s open. */
    void reset(EngineBlob blob) {
        this.blob = blob;
        this.permit = blob.permit();
        this.submittedTo = null;
        this.submittedNanos = 0;
        this.bytes = 0;
        this.event = null;
    }

    /**
     * Why the request, now holding the permit, must fail without reaching the kernel: a flush of this open failed
     * before, and what it dropped is gone from what a flush would write, so this one cannot make the writes it
     * covers durable (another request's failure does not tell this one). Blob's class doc: the open is poisoned.
     *
     * @param what the request, as its messages name it
     * @return the failure, or null if the open is not poisoned
     */
    StorageIoException refusal(String what) {
        String poisoned = permit.failure();
        return poisoned == null ? null : new StorageIoException(what + " refused: an earlier sync of this open"
                + " failed (" + poisoned + "), and data it lost cannot be made durable through this open");
    }

    /**
     * Whether the flush needs the kernel: something was written since the last flush. Takes the open's dirty flag;
     * called once, with the permit held and no {@link #refusal}.
     *
     * @return false if the request may succeed at once
     */
    boolean needed() {
        return permit.takeDirty();
    }

    /** Fills the submission: {@code fdatasync} of {@code fd}. */
    void prepare(Submission submission, Ring ring, int fd) {
        submission.opcode = Opcode.FSYNC;
        submission.fd = fd;
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

    /**
     * The flush ended ({@code result} 0 or {@code -errno}, never a transient one): counted and timed on the
     * completing worker; a failure poisons the open, since what the failed flush dropped cannot be made durable
     * through it any more (Blob's class doc).
     *
     * @param result the kernel's result
     * @param what the request, as its messages name it
     * @return the failure to report, or null on success
     */
    StorageException ended(int result, String what) {
        measured(result);
        if (result >= 0) {
            return null;
        }
        permit.markDirty();
        StorageException failure = EngineStorage.translate(new KernelException(-result, "fdatasync", blob.name()), what);
        permit.poison(String.valueOf(failure.getMessage()));
        return failure;
    }

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
}
