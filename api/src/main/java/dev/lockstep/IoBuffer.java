package dev.lockstep;

import java.lang.foreign.MemorySegment;

/**
 * Native memory for I/O without copies: a page-aligned {@link MemorySegment} from a worker's
 * {@link BufferPool}, which {@link Blob#readInto}, {@link Blob#writeFrom}, {@link Stream#recvInto} and
 * {@link Sink#sendFrom} hand to the kernel as it is.
 *
 * <h2>Ownership</h2>
 * A buffer is <em>held</em> by the code that allocated it from the moment {@link BufferPool#allocate} returns
 * until {@link #close()}. Handing it to an I/O call lends it to the kernel:
 * <ul>
 *   <li><b>In flight.</b> From the call until the operation completes — and, if the operation is closed
 *       before it completes, until the kernel has let go of the request (its cancellation or its own
 *       completion arrived) — the kernel may read or write the buffer. During that time {@link #segment()}
 *       refuses with {@link IllegalStateException}, a second I/O call with it refuses the same way, and
 *       touching a segment obtained earlier is a data race with the kernel whose outcome is unspecified
 *       (the memory stays allocated, so the JVM is never harmed).</li>
 *   <li><b>Back.</b> Once the operation completed — successfully, with a failure, or cancelled — the buffer is
 *       held again by the caller. After a successful read or receive its range holds the bytes; after a
 *       failed or cancelled one the range holds whatever part the kernel wrote: unspecified bytes, never
 *       memory of another buffer. A failed or cancelled write or send leaves the buffer unchanged.</li>
 *   <li><b>Closing an operation</b> never frees its buffer: the runtime keeps the memory until the kernel
 *       lets it go, then gives the buffer back to its holder. {@link #close()} on a buffer in flight is
 *       allowed: the memory returns to the pool when the kernel lets it go.</li>
 *   <li><b>Released.</b> After {@link #close()} every use fails: {@link #segment()} and I/O calls throw
 *       {@link ClosedException} naming the buffer. When the runner that made the pool ends, every buffer it
 *       handed out is released and its memory freed (the kernel has let go of all of it by then).</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * A buffer belongs to the worker whose pool allocated it. It may be used for I/O, closed, and its segment
 * taken only by tasks running on that worker; anywhere else (another worker, another runner, a plain thread)
 * those calls throw {@link IllegalArgumentException} (I/O) or {@link IllegalStateException} ({@link #close()},
 * {@link #segment()}) naming both workers, so the pool needs no locks. The segment itself may be read and
 * written from any thread while the buffer is held.
 */
public interface IoBuffer extends AutoCloseable {

    /**
     * The buffer's memory: {@link #capacity()} bytes, native, starting at an address aligned to
     * {@link BufferPool#PAGE_BYTES}. Contents on allocation: zeros for memory the pool never handed out, what
     * the previous holder left otherwise.
     *
     * @return the memory
     * @throws ClosedException once released
     * @throws IllegalStateException while an operation has it in flight, or off its worker
     */
    MemorySegment segment();

    /**
     * The usable size: the size asked for, rounded up to the pool's size class.
     *
     * @return bytes, {@code > 0}
     */
    int capacity();

    /**
     * Returns the buffer to its pool: at once if it is held, when the kernel lets it go if it is in flight.
     * Idempotent.
     *
     * @throws IllegalStateException off its worker, while its runner runs
     */
    @Override
    void close();
}
