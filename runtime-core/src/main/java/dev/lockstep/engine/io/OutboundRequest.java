package dev.lockstep.engine.io;

import dev.lockstep.engine.buffer.PooledBuffer;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Worker;
import java.lang.foreign.MemorySegment;

/**
 * What a blob write and a sink send share: {@code count} bytes from the caller's buffer (lent while in flight)
 * or from a pooled copy of {@code byte[]} chunks, resubmitted from where a short transfer stopped, and reused
 * through the worker's recycler once retired. Confined to the request's worker, as every request is.
 */
abstract class OutboundRequest extends RingRequest {
    /** Bytes to move, and bytes moved so far. */
    protected int count;
    protected int done;
    /** The bytes: the caller's buffer (from {@link #sourceAt}), or the pooled copy; null until set. */
    private MemorySegment source;
    private int sourceAt;
    /** Why the copy at the call failed (no memory for it), thrown when the worker prepares the request; or null. */
    private Throwable copyFailure;

    OutboundRequest() {
        super(null);
    }

    /** Sets the request up for a new admission on {@code file}. */
    final void start(SharedFd file, int count) {
        reuse(file);
        this.count = count;
        this.done = 0;
        this.source = null;
        this.sourceAt = 0;
        this.copyFailure = null;
    }

    /** Moves the bytes from the caller's buffer, which the call marked in flight. */
    final void lend(PooledBuffer from, int at) {
        lent = from;
        source = from.memory();
        sourceAt = at;
    }

    /**
     * Copies the chunks now, on the calling fiber of {@code worker} (see {@link #copyChunks}). A copy that cannot
     * get its memory does not throw out of the call, which would leave the fd reference this request holds
     * behind: the request is admitted all the same and fails when its worker prepares it, typed and naming the
     * request ({@link Request#internalFailure}), as a copy deferred to its first submission fails.
     */
    final void copy(Worker worker, byte[][] chunks) {
        try {
            source = copyChunks(worker.buffers(), chunks, count);
        } catch (RuntimeException | OutOfMemoryError failure) {
            copyFailure = failure;
        }
    }

    /**
     * The bytes not moved yet, for the next submission.
     *
     * @throws RuntimeException or {@link OutOfMemoryError}: the copy at the call failed, or the copy made now
     *     cannot get its memory
     */
    final MemorySegment remaining() {
        if (copyFailure instanceof RuntimeException failure) {
            throw failure;
        }
        if (copyFailure instanceof Error failure) {
            throw failure;
        }
        if (source == null) {
            source = pendingCopy();
        }
        return slicedFrom(source, sourceAt + done);
    }

    @Override
    public void release(dev.lockstep.kernel.Ring ring) {
        super.release(ring);
        source = null;
    }
}
