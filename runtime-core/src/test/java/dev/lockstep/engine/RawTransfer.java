package dev.lockstep.engine;

import dev.lockstep.engine.request.Request;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.lang.foreign.MemorySegment;

/**
 * One raw read or write on the kernel SPI, below every check of the engine: it completes with the kernel's result
 * as it came (bytes moved, or {@code -errno}), retrying only {@code EINTR} and {@code EAGAIN}. The white-box cases
 * use it to see what both kernels do; the direct-read benchmark drives the engine's ring path with it.
 */
public final class RawTransfer extends Request {
    private final Opcode opcode;
    private final int fd;
    private final MemorySegment buffer;
    private final int length;
    private final long offset;

    /**
     * A transfer of {@code length} bytes between {@code buffer} and {@code fd} at {@code offset}.
     *
     * @param opcode {@link Opcode#READ} or {@link Opcode#WRITE}
     * @param fd the file
     * @param buffer the caller's memory, which must outlive the request
     * @param length bytes
     * @param offset the file offset
     */
    public RawTransfer(Opcode opcode, int fd, MemorySegment buffer, int length, long offset) {
        this.opcode = opcode;
        this.fd = fd;
        this.buffer = buffer;
        this.length = length;
        this.offset = offset;
    }

    @Override
    public Kind kind() {
        return Kind.RING;
    }

    @Override
    public void prepare(Submission submission, Ring ring) {
        submission.opcode = opcode;
        submission.fd = fd;
        submission.buffer = buffer;
        submission.length = length;
        submission.offset = offset;
    }

    @Override
    public boolean complete(int result) {
        return result == -Errno.EINTR || result == -Errno.EAGAIN ? false : succeed(result);
    }

    @Override
    public String describe() {
        return "raw " + opcode + " of " + length + " bytes at " + offset;
    }
}
