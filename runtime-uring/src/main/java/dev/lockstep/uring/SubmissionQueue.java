package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * A ring's submission queue as the kernel maps it: the SQ ring (head, tail, flags, the index array) and the array
 * of SQEs, written here in the kernel's binary layout. Entries are written past the tail the kernel sees and
 * become the kernel's when {@link #publish()} moves that tail; entry {@code i} of the queue always uses SQE
 * {@code i}, so the index array is filled once.
 *
 * <p>Threads: the ring's owner thread only (or a fiber of its worker, on it). The one place it meets the kernel
 * is the shared ring memory: the kernel's head is read with acquire (the SQEs before it are consumed and may be
 * rewritten), and the tail is published with release, so every SQE written before {@link #publish()} is
 * visible to the kernel that reads the new tail.
 */
final class SubmissionQueue {
    private static final int SQE_BYTES = 64;
    private static final int SQ_FLAG_CQ_OVERFLOW = 2;
    private static final int SQ_FLAG_TASKRUN = 4;
    private static final VarHandle SHARED_INT = JAVA_INT.varHandle();

    private final MemorySegment sqRing;
    private final MemorySegment sqes;
    private final int entries;
    private final int mask;
    private final long headOffset;
    private final long tailOffset;
    private final long flagsOffset;
    /** Entries written up to here; published to the kernel by {@link #publish()}. */
    private int stagedTail;

    /**
     * Bytes to map for the SQ ring ({@code IORING_OFF_SQ_RING}).
     *
     * @param params the filled-in {@code struct io_uring_params}
     * @return bytes
     */
    static long ringBytes(MemorySegment params) {
        long arrayOffset = params.get(JAVA_INT, UringSetup.PARAMS_SQ_OFFSETS + 24);
        return arrayOffset + 4L * params.get(JAVA_INT, UringSetup.PARAMS_SQ_ENTRIES);
    }

    /**
     * Bytes to map for the SQEs ({@code IORING_OFF_SQES}).
     *
     * @param params the filled-in {@code struct io_uring_params}
     * @return bytes
     */
    static long entriesBytes(MemorySegment params) {
        return (long) SQE_BYTES * params.get(JAVA_INT, UringSetup.PARAMS_SQ_ENTRIES);
    }

    /**
     * @param params the filled-in {@code struct io_uring_params}
     * @param sqRing the mapped SQ ring, {@link #ringBytes} long
     * @param sqes the mapped SQEs, {@link #entriesBytes} long
     */
    SubmissionQueue(MemorySegment params, MemorySegment sqRing, MemorySegment sqes) {
        this.sqRing = sqRing;
        this.sqes = sqes;
        this.entries = params.get(JAVA_INT, UringSetup.PARAMS_SQ_ENTRIES);
        this.headOffset = params.get(JAVA_INT, UringSetup.PARAMS_SQ_OFFSETS);
        this.tailOffset = params.get(JAVA_INT, UringSetup.PARAMS_SQ_OFFSETS + 4);
        long maskOffset = params.get(JAVA_INT, UringSetup.PARAMS_SQ_OFFSETS + 8);
        this.flagsOffset = params.get(JAVA_INT, UringSetup.PARAMS_SQ_OFFSETS + 16);
        long arrayOffset = params.get(JAVA_INT, UringSetup.PARAMS_SQ_OFFSETS + 24);
        this.mask = sqRing.get(JAVA_INT, maskOffset);
        for (int index = 0; index < entries; index++) {
            sqRing.set(JAVA_INT, arrayOffset + 4L * index, index);
        }
        this.stagedTail = (int) SHARED_INT.getAcquire(sqRing, tailOffset);
    }

    /**
     * Entries that may still be written before the kernel consumes some.
     *
     * @return free entries
     */
    int freeSlots() {
        return entries - (stagedTail - (int) SHARED_INT.getAcquire(sqRing, headOffset));
    }

    /**
     * Writes the next SQE; the caller has checked {@link #freeSlots()}.
     *
     * @param opcode {@code IORING_OP_*}
     * @param fd the file or socket, or -1
     * @param offset the offset field (a file offset, or what the opcode keeps there)
     * @param address the address field
     * @param length the length field
     * @param opcodeFlags the opcode's flags ({@code rw_flags}, {@code fsync_flags}, ...)
     * @param userData returned in the completion
     */
    void write(byte opcode, int fd, long offset, long address, int length, int opcodeFlags, long userData) {
        assert freeSlots() > 0 : "an SQE written into a full queue of " + entries + " (tail " + stagedTail + ")";
        long sqe = (long) (stagedTail & mask) * SQE_BYTES;
        // The whole entry as its eight little-endian words (x86-64 and aarch64, the supported targets), every
        // field this ring does not use zero: byte 0 the opcode, bytes 1-3 flags and priority (0), bytes 4-7
        // the fd; the offset; the address; the length and the opcode's flags; the user data; buf_index,
        // personality, splice_fd_in, addr3 and padding (0).
        sqes.set(JAVA_LONG, sqe, (opcode & 0xFFL) | ((long) fd << 32));
        sqes.set(JAVA_LONG, sqe + 8, offset);
        sqes.set(JAVA_LONG, sqe + 16, address);
        sqes.set(JAVA_LONG, sqe + 24, (length & 0xFFFF_FFFFL) | ((long) opcodeFlags << 32));
        sqes.set(JAVA_LONG, sqe + 32, userData);
        sqes.set(JAVA_LONG, sqe + 40, 0L);
        sqes.set(JAVA_LONG, sqe + 48, 0L);
        sqes.set(JAVA_LONG, sqe + 56, 0L);
        stagedTail++;
    }

    /**
     * Makes the entry {@link #write} wrote last select its buffer from a provided buffer group.
     *
     * @param sqeFlag {@code IOSQE_BUFFER_SELECT}
     * @param group the buffer group id ({@code buf_group})
     */
    void selectBufferOfLast(byte sqeFlag, int group) {
        long sqe = (long) ((stagedTail - 1) & mask) * SQE_BYTES;
        sqes.set(java.lang.foreign.ValueLayout.JAVA_BYTE, sqe + 1, sqeFlag);
        sqes.set(java.lang.foreign.ValueLayout.JAVA_SHORT, sqe + 40, (short) group);
    }

    /**
     * Hands every written entry to the kernel (the tail, with release) for the next {@code io_uring_enter}.
     *
     * @return the entries published and not yet consumed: what that enter should submit
     */
    int publish() {
        int toSubmit = stagedTail - (int) SHARED_INT.getAcquire(sqRing, headOffset);
        assert toSubmit >= 0 && toSubmit <= entries : toSubmit + " entries to submit in a queue of " + entries;
        SHARED_INT.setRelease(sqRing, tailOffset, stagedTail);
        return toSubmit;
    }

    /**
     * Whether every written entry has been consumed by the kernel: nothing for an {@code io_uring_enter} to submit.
     *
     * @return true when the kernel's head has reached the last written entry
     */
    boolean allSubmitted() {
        return stagedTail == (int) SHARED_INT.getAcquire(sqRing, headOffset);
    }

    /**
     * Whether the kernel asks for an {@code io_uring_enter} with {@code GETEVENTS}: completions wait in its
     * overflow backlog, or task work is pending ({@code IORING_SQ_TASKRUN}, set only on a ring set up with
     * {@code IORING_SETUP_TASKRUN_FLAG}) that posts completions only when this thread enters.
     *
     * @return true while an enter would bring completions that reaping the queue cannot
     */
    boolean kernelAsksForEnter() {
        return ((int) SHARED_INT.getAcquire(sqRing, flagsOffset) & (SQ_FLAG_CQ_OVERFLOW | SQ_FLAG_TASKRUN)) != 0;
    }

    /**
     * Whether the kernel has completions in its overflow backlog ({@code IORING_SQ_CQ_OVERFLOW}): an
     * {@code io_uring_enter} with {@code GETEVENTS} flushes them into the completion queue.
     *
     * @return true while completions wait in the backlog
     */
    boolean completionsOverflowed() {
        return ((int) SHARED_INT.getAcquire(sqRing, flagsOffset) & SQ_FLAG_CQ_OVERFLOW) != 0;
    }
}
