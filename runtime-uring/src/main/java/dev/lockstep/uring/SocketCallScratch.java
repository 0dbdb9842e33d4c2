package dev.lockstep.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Native memory a platform thread reuses for the small socket calls a server makes per connection — reading an
 * accepted socket's peer address ({@code getpeername}), setting {@code TCP_NODELAY} — instead of a confined arena
 * and three allocations per call: a worker accepting a burst of connections makes those calls in its service turn,
 * one after another.
 *
 * <p>One per platform thread (a worker's thread, an offload thread), made at its first such call and freed by the
 * collector once the thread is gone ({@link Arena#ofAuto()}); a virtual thread gets none
 * ({@link #ofCurrentThread()} answers null) and its caller uses a confined arena, so idle fibers never hold native
 * memory of their own. A call uses its thread's scratch from the moment it fills it until it has read the result,
 * and makes no other call meanwhile, so no two uses overlap.
 */
final class SocketCallScratch {
    /** Bytes of {@link #sockaddr}: a {@code sockaddr_storage}. */
    static final int SOCKADDR_BYTES = 128;

    private static final ThreadLocal<SocketCallScratch> OF_PLATFORM_THREAD =
            ThreadLocal.withInitial(SocketCallScratch::new);

    /** Where the linker captures {@code errno}. */
    final MemorySegment callState;
    /** A socket address the kernel fills in. */
    final MemorySegment sockaddr;
    /** A {@code socklen_t}, in and out. */
    final MemorySegment length;
    /** An {@code int} option value. */
    final MemorySegment option;

    private SocketCallScratch() {
        Arena arena = Arena.ofAuto();
        callState = Libc.newCallState(arena);
        sockaddr = arena.allocate(SOCKADDR_BYTES, 8);
        length = arena.allocate(Integer.BYTES, Integer.BYTES);
        option = arena.allocate(Integer.BYTES, Integer.BYTES);
    }

    /**
     * The calling thread's scratch.
     *
     * @return it, or null on a virtual thread
     */
    static SocketCallScratch ofCurrentThread() {
        return Thread.currentThread().isVirtual() ? null : OF_PLATFORM_THREAD.get();
    }
}
