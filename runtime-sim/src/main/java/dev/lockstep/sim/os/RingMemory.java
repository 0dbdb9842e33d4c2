package dev.lockstep.sim.os;

import dev.lockstep.kernel.Opcode;
import java.lang.foreign.MemorySegment;
import java.util.Comparator;
import java.util.List;

/**
 * The native memory a {@link SimKernel}'s rings handed out and did not free yet: one C heap for all of them, as
 * io_uring's rings share one, with what a leak report says about each allocation. The simulator's thread only.
 */
final class RingMemory {
    /**
     * Native memory handed out and not yet freed, by address: looked up on every request's staging, so without
     * boxing. Its walks are sorted by {@link Allocation#number} (allocation order), so a leak report does not depend
     * on where the C library put the memory.
     */
    private final AddressTable<Allocation> allocations = new AddressTable<>();
    private long allocationsMade;

    /**
     * One live allocation: what a leak report says about it. Allocation is on every request's path, so it records
     * no stack (a walk per request would cost the simulator a third of its speed): the request that last staged
     * the buffer names what it was for.
     */
    private static final class Allocation {
        final MemorySegment segment;
        final long ringId;
        final long number;
        final long atNanos;
        /**
         * The request that last staged the buffer: its opcode (null if none did), fd and what the fd named then.
         * Put into words only for a report: staging is on every request's path.
         */
        Opcode lastOpcode;
        int lastFd;
        Description lastDescription;

        Allocation(MemorySegment segment, long ringId, long number, long atNanos) {
            this.segment = segment;
            this.ringId = ringId;
            this.number = number;
            this.atNanos = atNanos;
        }

        String describe() {
            return segment.byteSize() + "-byte ring buffer #" + number + " of ring " + ringId + ", allocated at "
                    + atNanos + " ns, " + lastUse();
        }

        private String lastUse() {
            if (lastOpcode == null) {
                return "never staged";
            }
            return "last staged by " + lastOpcode + " on fd " + lastFd
                    + (lastDescription == null ? "" : " (" + lastDescription.describe() + ")");
        }
    }

    /** Zeroed native memory for ring {@code ringId}, recorded as allocated at {@code nowNanos}. */
    MemorySegment allocate(long ringId, long bytes, long nowNanos) {
        MemorySegment segment = NativeMemory.calloc(bytes);
        allocations.put(segment.address(), new Allocation(segment, ringId, ++allocationsMade, nowNanos));
        return segment;
    }

    /** Remembers which request last staged a buffer, for the leak report; memory not handed out here is ignored. */
    void stagedWith(MemorySegment buffer, Opcode opcode, int fd, Description description) {
        Allocation allocation = allocations.get(buffer.address());
        if (allocation != null) {
            allocation.lastOpcode = opcode;
            allocation.lastFd = fd;
            allocation.lastDescription = description;
        }
    }

    /** Whether {@code segment} is exactly a live allocation. */
    boolean isAllocation(MemorySegment segment) {
        Allocation allocation = allocations.get(segment.address());
        return allocation != null && allocation.segment.byteSize() == segment.byteSize() && segment.isNative();
    }

    /** Frees a live allocation ({@link #isAllocation} said so). */
    void free(MemorySegment segment) {
        Allocation allocation = allocations.remove(segment.address());
        NativeMemory.free(allocation.segment);
    }

    /** Adds a line per allocation not freed, in allocation order. */
    void describeHeld(List<String> held) {
        for (Allocation allocation : inAllocationOrder()) {
            held.add(allocation.describe());
        }
    }

    /** Frees every allocation still live. */
    void freeAll() {
        for (Allocation allocation : inAllocationOrder()) {
            NativeMemory.free(allocation.segment);
        }
        allocations.clear();
    }

    private List<Allocation> inAllocationOrder() {
        List<Allocation> live = allocations.values();
        live.sort(Comparator.comparingLong(allocation -> allocation.number));
        return live;
    }
}
