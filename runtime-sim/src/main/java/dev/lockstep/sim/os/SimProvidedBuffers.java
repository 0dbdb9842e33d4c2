package dev.lockstep.sim.os;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A simulated ring's receive buffers that its kernel selects when data arrives, as io_uring's provided buffer ring
 * does on runtime-uring: a receive submitted with {@link dev.lockstep.kernel.Submission#SELECT_BUFFER} holds none
 * while it waits; when it is performed with bytes to take, the lowest free buffer is filled and named in the
 * completion's flags, and the engine gives it back once it copied the bytes out. With every buffer out the receive
 * completes with {@code -ENOBUFS}, taking nothing.
 *
 * <p>Memory: a buffer is allocated the first time it is selected, so a ring holds as many as were ever out at once
 * (the engine gives each back within the completion that lent it, so one in practice), never one per waiting
 * receive. The choice of buffer is the lowest free id: no draw, the same for the same run.
 *
 * <p>The simulator's thread only, as its ring.
 */
final class SimProvidedBuffers {
    /** Buffers per ring: as many as runtime-uring's rings register. */
    static final int COUNT = 64;
    /** Bytes of each: as runtime-uring's. */
    static final int BUFFER_BYTES = 16 * 1024;
    private static final int ID_SHIFT = 16;

    /** Reclaimed with the ring: a crashed node's rings are dropped without a close. */
    private final Arena arena = Arena.ofAuto();
    private final List<MemorySegment> buffers = new ArrayList<>();
    private final BitSet lent = new BitSet(COUNT);

    /**
     * The lowest free buffer, now lent, or -1 if every one is out.
     *
     * @return the id, or -1
     */
    int select() {
        int id = lent.nextClearBit(0);
        if (id >= COUNT) {
            return -1;
        }
        if (id == buffers.size()) {
            buffers.add(arena.allocate(BUFFER_BYTES, 8));
        }
        lent.set(id);
        return id;
    }

    MemorySegment buffer(int id) {
        return buffers.get(id);
    }

    /** The completion flags that name buffer {@code id}. */
    static int completionFlags(int id) {
        return dev.lockstep.kernel.Ring.COMPLETION_BUFFER | (id << ID_SHIFT);
    }

    /**
     * The buffer a completion's flags name, which must be lent.
     *
     * @throws IllegalArgumentException naming the flags if they name no lent buffer
     */
    int idOf(int completionFlags) {
        int id = completionFlags >>> ID_SHIFT;
        if ((completionFlags & dev.lockstep.kernel.Ring.COMPLETION_BUFFER) == 0 || id >= COUNT || !lent.get(id)) {
            throw new IllegalArgumentException("completion flags 0x" + Integer.toHexString(completionFlags)
                    + " name no selected buffer this ring lent");
        }
        return id;
    }

    /** Gives back buffer {@code id}, which its caller took from {@link #select} or {@link #idOf}: lent. */
    void give(int id) {
        lent.clear(id);
    }

    /** Buffers lent and not given back. */
    int lent() {
        return lent.cardinality();
    }
}
