package dev.lockstep.engine;

import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Ring;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A request that goes through the ring on an fd it holds a reference to, with at most one kernel-visible
 * buffer. Both stay owned by the request until it retires: the fd reference keeps the number from being
 * reused, the buffer stays allocated until the kernel's last completion for it.
 */
abstract class RingRequest extends Request {
    /** The fd the request uses, or null (a connect creates its own socket). */
    protected final SharedFd file;
    /** Memory the kernel reads or writes, allocated on the worker at the first submission. */
    protected MemorySegment buffer;

    RingRequest(SharedFd file) {
        this.file = file;
    }

    @Override
    public final Kind kind() {
        return Kind.RING;
    }

    /**
     * Whether a result only means "try again": the call was interrupted or would have blocked.
     *
     * @param result a completion result
     * @return true for {@code -EINTR} and {@code -EAGAIN}
     */
    static boolean isTransient(int result) {
        return result == -Errno.EINTR || result == -Errno.EAGAIN;
    }

    /** Allocates the buffer on first use. */
    protected final MemorySegment buffer(Ring ring, long size) {
        if (buffer == null) {
            buffer = ring.allocate(size);
        }
        return buffer;
    }

    /** Allocates the buffer on first use, filled with {@code data}. */
    protected final MemorySegment buffer(Ring ring, byte[] data) {
        if (buffer == null) {
            buffer = ring.allocate(data.length);
            MemorySegment.copy(data, 0, buffer, ValueLayout.JAVA_BYTE, 0, data.length);
        }
        return buffer;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The buffer is dropped, not freed: the kernel may write it until its own teardown of the failed ring
     * ends, so it stays allocated for the life of the process.
     */
    @Override
    public void releaseAbandoned(Ring ring) {
        buffer = null;
        release(ring);
    }

    @Override
    public void release(Ring ring) {
        if (buffer != null) {
            ring.free(buffer);
            buffer = null;
        }
        if (file != null) {
            file.release();
        }
    }
}
