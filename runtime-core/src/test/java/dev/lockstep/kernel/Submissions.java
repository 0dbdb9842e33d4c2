package dev.lockstep.kernel;

import java.lang.foreign.MemorySegment;

/**
 * Submissions built for the tests that drive a {@link Ring} by hand: the simulator's ring tests and runtime-uring's,
 * through runtime-core's test jar. Each sets what its operation needs and leaves the rest at
 * {@link Submission}'s defaults. Test code only.
 */
public final class Submissions {
    private Submissions() {
    }

    /** A NOP. */
    public static Submission nop(long userData) {
        Submission submission = new Submission();
        submission.opcode = Opcode.NOP;
        submission.userData = userData;
        return submission;
    }

    /** {@code opcode} on {@code fd} with {@code length} bytes of {@code buffer} at file {@code offset}. */
    public static Submission io(Opcode opcode, int fd, MemorySegment buffer, int length, long offset, long userData) {
        Submission submission = new Submission();
        submission.opcode = opcode;
        submission.fd = fd;
        submission.buffer = buffer;
        submission.length = length;
        submission.offset = offset;
        submission.userData = userData;
        return submission;
    }

    /** {@code opcode} on {@code fd} with the whole of {@code buffer}, at offset 0. */
    public static Submission whole(Opcode opcode, int fd, MemorySegment buffer, long userData) {
        return io(opcode, fd, buffer, (int) buffer.byteSize(), 0, userData);
    }

    /** An fsync of {@code fd}. */
    public static Submission fsync(int fd, long userData) {
        Submission submission = new Submission();
        submission.opcode = Opcode.FSYNC;
        submission.fd = fd;
        submission.userData = userData;
        return submission;
    }

    /** An accept on the listening {@code fd}. */
    public static Submission accept(int fd, long userData) {
        Submission submission = new Submission();
        submission.opcode = Opcode.ACCEPT;
        submission.fd = fd;
        submission.userData = userData;
        return submission;
    }

    /** A connect of {@code fd} to the address {@code sockaddr} holds. */
    public static Submission connect(int fd, MemorySegment sockaddr, long userData) {
        return whole(Opcode.CONNECT, fd, sockaddr, userData);
    }

    /** A cancellation of the submission staged under {@code target}. */
    public static Submission cancel(long target, long userData) {
        Submission submission = new Submission();
        submission.opcode = Opcode.ASYNC_CANCEL;
        submission.target = target;
        submission.userData = userData;
        return submission;
    }
}
