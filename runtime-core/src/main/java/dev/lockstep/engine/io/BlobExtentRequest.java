package dev.lockstep.engine.io;

import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;

/**
 * A change of a blob's extent through the ring, so it never blocks the worker: a resize ({@code ftruncate},
 * {@link Opcode#FTRUNCATE}) or a preallocation ({@code fallocate}, {@link Opcode#FALLOCATE}). Retained work, like a
 * write: closing its operation does not stop it. Confined to its worker, as every request is.
 */
final class BlobExtentRequest extends RingRequest {
    private final EngineBlob blob;
    /** {@link Opcode#FTRUNCATE} or {@link Opcode#FALLOCATE}. */
    private final Opcode opcode;
    /** A resize's new length, or the first byte a preallocation covers. */
    private final long offset;
    /** The bytes a preallocation covers; 0 for a resize. */
    private final long count;

    private BlobExtentRequest(EngineBlob blob, Opcode opcode, long offset, long count) {
        super(blob.fd().acquire()); // a closed blob throws here
        this.blob = blob;
        this.opcode = opcode;
        this.offset = offset;
        this.count = count;
    }

    /** A resize of {@code blob} to {@code newLength} (checked by the caller). */
    static BlobExtentRequest resize(EngineBlob blob, long newLength) {
        return new BlobExtentRequest(blob, Opcode.FTRUNCATE, newLength, 0);
    }

    /** A preallocation of {@code count > 0} bytes of {@code blob} at {@code offset} (checked by the caller). */
    static BlobExtentRequest allocate(EngineBlob blob, long offset, long count) {
        return new BlobExtentRequest(blob, Opcode.FALLOCATE, offset, count);
    }

    @Override
    public boolean retained() {
        return true;
    }

    @Override
    public void prepare(Submission submission, Ring ring) {
        submission.opcode = opcode;
        submission.fd = file.fd();
        submission.offset = offset;
        submission.rangeLength = count;
    }

    @Override
    public boolean complete(int result) {
        if (isTransient(result)) {
            return false;
        }
        // Dirty once the kernel ran it (like a write at its completion), so every sync admitted after it completed
        // reaches the kernel. A failed one may have changed the file too: ext4 keeps the blocks (and the size) a
        // fallocate got before ENOSPC.
        blob.permit().markDirty();
        boolean resize = opcode == Opcode.FTRUNCATE;
        if (result < 0) {
            return fail(EngineStorage.translate(
                    new KernelException(-result, resize ? "ftruncate" : "fallocate", blob.name()), describe()));
        }
        if (resize) {
            blob.resized(offset);
        } else {
            blob.extendedTo(offset + count);
        }
        return succeed(null);
    }

    @Override
    public String describe() {
        return opcode == Opcode.FTRUNCATE
                ? "resize of '" + blob.name() + "' to " + offset
                : "allocation of " + count + " bytes at offset " + offset + " of blob '" + blob.name() + "'";
    }
}
