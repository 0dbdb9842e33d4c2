package dev.lockstep.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A ring's memory shared with the kernel: the submission queue ring, the completion queue ring (the same mapping
 * where the kernel reports {@code IORING_FEAT_SINGLE_MMAP}) and the array of SQEs, each mapped from the ring's fd at
 * the kernel's fixed offsets with {@code MAP_SHARED | MAP_POPULATE}. Each mapping is tied to the ring's arena, so
 * closing the arena unmaps it.
 *
 * @param submissionRing the submission queue ring
 * @param completionRing the completion queue ring
 * @param entries the SQEs
 */
record RingMemory(MemorySegment submissionRing, MemorySegment completionRing, MemorySegment entries) {
    private static final long MMAP_OFFSET_SQ_RING = 0L;
    private static final long MMAP_OFFSET_CQ_RING = 0x8000000L;
    private static final long MMAP_OFFSET_SQES = 0x10000000L;

    /**
     * Maps a ring's memory, with the sizes its set-up {@code params} report.
     *
     * @throws dev.lockstep.kernel.KernelException naming {@code mmap} and {@code subject} if a mapping fails
     */
    static RingMemory map(MemorySegment params, int features, Arena arena, MemorySegment callState, int ringFd,
                          String subject) {
        long sqRingBytes = SubmissionQueue.ringBytes(params);
        long cqRingBytes = CompletionQueue.ringBytes(params);
        MemorySegment sqRing;
        MemorySegment cqRing;
        if ((features & UringSetup.FEATURE_SINGLE_MMAP) != 0) {
            sqRing = map(Math.max(sqRingBytes, cqRingBytes), MMAP_OFFSET_SQ_RING, arena, callState, ringFd, subject);
            cqRing = sqRing;
        } else {
            sqRing = map(sqRingBytes, MMAP_OFFSET_SQ_RING, arena, callState, ringFd, subject);
            cqRing = map(cqRingBytes, MMAP_OFFSET_CQ_RING, arena, callState, ringFd, subject);
        }
        MemorySegment sqes = map(SubmissionQueue.entriesBytes(params), MMAP_OFFSET_SQES, arena, callState, ringFd,
                subject);
        return new RingMemory(sqRing, cqRing, sqes);
    }

    // Restricted: the kernel tells us the mapping's size; tying it to the arena makes closing it unmap it.
    @SuppressWarnings("restricted")
    private static MemorySegment map(long bytes, long offset, Arena arena, MemorySegment callState, int ringFd,
                                     String subject) {
        return Libc.mmap(callState, bytes, Libc.PROT_READ_WRITE, Libc.MAP_SHARED_POPULATE, ringFd, offset, subject)
                .reinterpret(bytes, arena, mapping -> Libc.munmapQuietly(mapping, bytes));
    }
}
