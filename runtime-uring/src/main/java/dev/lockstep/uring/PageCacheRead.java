package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A ring's reads from the kernel's page cache that never wait ({@link UringRing#readWithoutWaiting}): one
 * {@code preadv2(fd, [buffer + at, length], 1, offset, RWF_NOWAIT)}, which copies what the page cache holds and
 * returns {@code -EAGAIN} instead of starting device I/O or waiting for a page lock.
 *
 * <p>Asked first without capturing {@code errno} ({@link Libc#syscallUncaptured}), and again capturing it only
 * when that failed. Not for speed alone: the linker makes every downcall with
 * {@link java.lang.foreign.Linker.Option#captureCallState} take a 40-byte slice of the call-state segment
 * ({@code SharedUtils.checkCaptureSegment}), which only C2's escape analysis removes, and whether it does depends
 * on how the JIT happened to compile the caller: a read the page cache answers here is one per
 * {@code Blob.readInto}, and in some JVMs that slice was allocated on every one of them (63 heap bytes per
 * {@code readInto} instead of its 24-byte handle, {@code UringBufferAllocationTest}). The hit, the common answer,
 * makes no call-state slice at all. Asking twice is safe: a {@code preadv2} that returned {@code -1} copied no
 * byte and, being positioned, moved no file offset, so the second call asks the same question (its answer, bytes
 * that arrived in the page cache meanwhile or the same error, is as good as the first's); {@code -1} is never a
 * byte count. What a miss pays is one more {@code preadv2} that finds the same pages missing, before the ring's
 * read that waits for the device anyway.
 *
 * <p>A read of up to {@value #CRITICAL_MAX_BYTES} bytes is asked as a critical downcall
 * ({@link Libc#syscallCritical}): it cannot wait (that is what {@code RWF_NOWAIT} asks), and its copy into the
 * worker's native memory is a few microseconds at most, so the transitions to native and back that an ordinary
 * downcall makes would be most of the Java side's cost of a read the page cache answers.
 *
 * <p>Threads: the owning ring's thread only (or a fiber of its worker, on it), which the ring checks; the one
 * {@code struct iovec} is reused by every call.
 */
final class PageCacheRead {
    /**
     * The largest read asked as a critical downcall ({@link Libc#syscallCritical}): the copy of 64 KiB from the page
     * cache takes a few microseconds, which is how long the JVM's next safepoint may wait for it. A larger read
     * goes through the ordinary downcall.
     */
    static final int CRITICAL_MAX_BYTES = 64 * 1024;

    /** The one {@code struct iovec}: base and length. */
    private final MemorySegment readVector;
    private final MemorySegment callState;

    PageCacheRead(Arena arena, MemorySegment callState) {
        this.readVector = arena.allocate(16, 8);
        this.callState = callState;
    }

    /**
     * Reads what the page cache holds of {@code length} bytes at {@code offset} into {@code buffer} at {@code at}.
     * The caller has checked the range ({@code Ring.checkReadWithoutWaiting}).
     *
     * @return the bytes read, or {@code -errno} ({@code -EAGAIN} for pages the cache lacks)
     */
    int read(int fd, MemorySegment buffer, long at, int length, long offset) {
        readVector.set(JAVA_LONG, 0, buffer.address() + at);
        readVector.set(JAVA_LONG, 8, length);
        // On 64-bit targets the offset goes whole in pos_l; pos_h is 0. Uncaptured first, see above: only a
        // failure needs errno (EAGAIN, or the EOPNOTSUPP/EINVAL after which the engine stops asking).
        long read = length <= CRITICAL_MAX_BYTES
                ? Libc.syscallCritical(Libc.SYS_PREADV2, fd, readVector.address(), 1, offset, 0, Libc.RWF_NOWAIT)
                : Libc.syscallUncaptured(Libc.SYS_PREADV2, fd, readVector.address(), 1, offset, 0,
                        Libc.RWF_NOWAIT);
        if (read != -1) {
            return (int) read;
        }
        return (int) Libc.syscall(callState, Libc.SYS_PREADV2, fd, readVector.address(), 1, offset, 0,
                Libc.RWF_NOWAIT);
    }
}
