package dev.lockstep.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * How a {@link UringRing} is opened on the calling thread: its memory, the {@code io_uring_setup} call
 * ({@link UringSetup}), the wake-up eventfd, the receive buffers the kernel selects, the mapped queues, the opcode
 * probe, the ring fd's registration with its owner and the armed wake-up poll, in that order. A failure at any
 * step undoes what was done, in this order, and rethrows: the eventfd is closed, the ring fd unregistered (the
 * registration holds the ring's file) and closed, the receive buffers unmapped (no receive was staged yet), and
 * the arena closed, which frees the memory and the queues' mappings. Nothing stays open, mapped or registered.
 */
final class RingOpening {
    private RingOpening() {
    }

    /**
     * Opens a ring owned by the calling thread ({@link UringRing#open(int, int)}).
     *
     * @param entries the submission queue size, a power of two the caller has validated
     * @param receiveBuffers a power of two up to 32768, or 0 for none
     * @return the ring
     */
    static UringRing open(int entries, int receiveBuffers) {
        if (Thread.currentThread().isVirtual()) {
            throw new IllegalStateException("an io_uring ring must be opened by the platform thread that will "
                    + "drive it, not by virtual thread " + Thread.currentThread());
        }
        // Shared, not confined: the ring's memory is touched by its owner's fibers too (inline turns), which are
        // virtual threads the arena's confinement check would refuse, though they run on the owner's thread.
        // Who may touch it is the ring's own check (requireOwner); the arena only keeps it alive until close.
        Arena arena = Arena.ofShared();
        MemorySegment callState = Libc.newCallState(arena);
        int ringFd = -1;
        int eventFd = -1;
        ReceiveSelection selection = null;
        UringRing ring = null;
        try {
            MemorySegment params = arena.allocate(UringSetup.PARAMS_BYTES, 8);
            ringFd = UringSetup.setup(entries, params, callState);
            eventFd = (int) Libc.check(Libc.invoke(callState, state ->
                    (int) Libc.EVENTFD.invokeExact(state, 0, Libc.EFD_NONBLOCK | Libc.EFD_CLOEXEC)),
                    "eventfd", "io_uring fd " + ringFd);
            String subject = "io_uring fd " + ringFd;
            selection = receiveBuffers > 0
                    ? ReceiveSelection.register(arena, callState, ringFd, receiveBuffers,
                            UringRing.RECEIVE_BUFFER_BYTES, subject)
                    : ReceiveSelection.none(subject);
            ring = new UringRing(entries, arena, callState, ringFd, eventFd, params, selection);
            UringSetup.probeOpcodes(arena, callState, ringFd);
            ring.registerRingFdAndArmWakePoll();
            RingReport.opened(ring);
            return ring;
        } catch (RuntimeException | Error failure) {
            UringRing.closeQuietly(callState, eventFd);
            if (ring != null) {
                // The registration holds the ring's file: the close alone would not free it.
                ring.unregisterRingFd();
            }
            UringRing.closeQuietly(callState, ringFd);
            if (selection != null) {
                selection.unmap(); // no receive was staged yet
            }
            arena.close();
            throw failure;
        }
    }
}
