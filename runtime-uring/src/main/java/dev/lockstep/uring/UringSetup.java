package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.lockstep.kernel.KernelException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.StringJoiner;

/**
 * How a ring is set up on the running kernel, and what that kernel supports: the {@code io_uring_setup} call
 * with its ladder of fallbacks ({@link #SETUP_CHOICES}), the layout of {@code struct io_uring_params}, and the
 * opcodes found with {@code IORING_REGISTER_PROBE}. What it learns is the process's: the first ring's open probes,
 * and the rings after it skip the set-up choices this kernel refused. Any thread; the answers are published through
 * volatile fields and are the same whichever thread computes them.
 */
final class UringSetup {
    static final int SETUP_CQSIZE = 1 << 3;
    static final int SETUP_SUBMIT_ALL = 1 << 7;
    /**
     * The kernel sets {@code IORING_SQ_TASKRUN} in the SQ ring's flags while task work is pending, so an enter that
     * has nothing to submit and would not wait can be left out when the flag is clear ({@link EnterLoop}).
     */
    static final int SETUP_TASKRUN_FLAG = 1 << 9;
    static final int SETUP_SINGLE_ISSUER = 1 << 12;
    static final int SETUP_DEFER_TASKRUN = 1 << 13;

    /** Most capable first: DEFER_TASKRUN (and TASKRUN_FLAG with it) needs 6.1, SUBMIT_ALL 5.18, CQSIZE 5.5. */
    static final int PREFERRED_SETUP =
            SETUP_SINGLE_ISSUER | SETUP_DEFER_TASKRUN | SETUP_TASKRUN_FLAG | SETUP_SUBMIT_ALL | SETUP_CQSIZE;
    /**
     * The choices tried in turn, each taken when the one before is refused with {@code EINVAL}. The second is the
     * first without {@code TASKRUN_FLAG}, so a kernel or sandbox that refuses only that flag keeps
     * {@code SINGLE_ISSUER|DEFER_TASKRUN} (its rings then make every enter, {@link EnterLoop}); the rest are for
     * kernels older than 6.1, which have no {@code DEFER_TASKRUN}.
     */
    private static final int[] SETUP_CHOICES = {
        PREFERRED_SETUP,
        SETUP_SINGLE_ISSUER | SETUP_DEFER_TASKRUN | SETUP_SUBMIT_ALL | SETUP_CQSIZE,
        SETUP_SUBMIT_ALL | SETUP_CQSIZE,
        SETUP_CQSIZE,
        0,
    };
    /** The first choice this kernel has not refused; rings after the first skip the refused ones. */
    private static volatile int firstAcceptedSetupChoice;
    /**
     * Set-up flags a test makes this process's set-up treat as refused ({@link #refuseSetupFlags}): a choice with any
     * of them fails with {@code EINVAL} without calling the kernel, as on a kernel without them; 0 in production.
     */
    private static volatile int refusedForTest;

    static final int FEATURE_SINGLE_MMAP = 1;
    static final int FEATURE_EXT_ARG = 1 << 8;

    /** {@code struct io_uring_params}: its size and the offsets of the fields read here and by the queues. */
    static final int PARAMS_BYTES = 120;
    static final long PARAMS_SQ_ENTRIES = 0;
    static final long PARAMS_CQ_ENTRIES = 4;
    static final long PARAMS_FLAGS = 8;
    static final long PARAMS_FEATURES = 20;
    static final long PARAMS_SQ_OFFSETS = 40;
    static final long PARAMS_CQ_OFFSETS = 80;

    static final byte OP_FTRUNCATE = 55;
    static final byte OP_FALLOCATE = 17;
    static final byte OP_OPENAT = 18;
    static final byte OP_STATX = 21;
    static final byte OP_UNLINKAT = 36;
    static final byte OP_MKDIRAT = 37;
    static final byte OP_RENAMEAT = 35;

    private static final int REGISTER_PROBE = 8;
    private static final int PROBE_OPS = 256;
    private static final int PROBE_HEADER_BYTES = 16;
    private static final int PROBE_OP_BYTES = 8;
    private static final int PROBE_OP_SUPPORTED = 1;
    /**
     * Whether this kernel runs {@code IORING_OP_FTRUNCATE} (Linux 6.9+), asked once per process with
     * {@code IORING_REGISTER_PROBE} at the first ring's open; null until then. Where it does not, a
     * {@code FTRUNCATE} submission runs {@code ftruncate} on an {@link Offload} thread instead.
     */
    private static volatile Boolean ftruncateOpcode;
    /**
     * Whether this kernel runs {@code IORING_OP_FALLOCATE} (Linux 5.6+), probed with {@link #ftruncateOpcode}; null
     * until then. Where it does not, a {@code FALLOCATE} submission runs {@code fallocate} on an {@link Offload}
     * thread instead.
     */
    private static volatile Boolean fallocateOpcode;
    /**
     * Whether this kernel runs every path opcode the engine uses ({@code OPENAT}, {@code STATX}: Linux 5.6;
     * {@code UNLINKAT}, {@code RENAMEAT}: 5.11; {@code MKDIRAT}: 5.15), probed with {@link #ftruncateOpcode}; null
     * until then. Where it does not, each of them runs its system call on an {@link Offload} thread instead,
     * completing the same way.
     */
    private static volatile Boolean pathOpcodes;

    private static final System.Logger LOG = System.getLogger(UringRing.class.getName());

    private UringSetup() {
    }

    /**
     * Creates a ring with the most capable set-up flags this kernel takes, falling back on {@code EINVAL}; the
     * first refusal is logged once as a warning.
     *
     * @param entries the submission queue size
     * @param params a zeroable {@code struct io_uring_params} of {@link #PARAMS_BYTES}, filled in by the kernel
     * @param callState where {@code errno} is captured
     * @return the ring's fd
     * @throws KernelException naming {@code io_uring_setup}, the entries and the last flags tried
     */
    static int setup(int entries, MemorySegment params, MemorySegment callState) {
        int firstChoice = firstAcceptedSetupChoice;
        for (int choice = firstChoice; ; choice++) {
            int flags = SETUP_CHOICES[choice];
            params.fill((byte) 0);
            params.set(JAVA_INT, PARAMS_FLAGS, flags);
            if ((flags & SETUP_CQSIZE) != 0) {
                params.set(JAVA_INT, PARAMS_CQ_ENTRIES, 2 * entries);
            }
            long result;
            if ((flags & refusedForTest) != 0) {
                result = -Libc.EINVAL;
            } else {
                do {
                    result = Libc.syscall(callState, Libc.SYS_IO_URING_SETUP, entries, params.address(), 0, 0, 0, 0);
                } while (result == -Libc.EINTR);
            }
            if (result >= 0) {
                if (choice != firstChoice) {
                    firstAcceptedSetupChoice = choice;
                    LOG.log(System.Logger.Level.WARNING, "io_uring_setup refused {0}; rings use {1}",
                            describeSetupFlags(SETUP_CHOICES[firstChoice]), describeSetupFlags(flags));
                }
                return (int) result;
            }
            if (result != -Libc.EINVAL || choice == SETUP_CHOICES.length - 1) {
                throw new KernelException((int) -result, "io_uring_setup",
                        entries + " entries, flags " + describeSetupFlags(flags));
            }
        }
    }

    /**
     * Test hook: every later set-up treats a choice with any of {@code flags} as refused with {@code EINVAL}, as a
     * kernel without them would, and the ladder starts again at its first choice; 0 restores the kernel's own
     * answers.
     *
     * @param flags {@code IORING_SETUP_*} bits to refuse, or 0
     */
    static void refuseSetupFlags(int flags) {
        refusedForTest = flags;
        firstAcceptedSetupChoice = 0;
    }

    /**
     * Probes the opcodes that have an offloaded fallback, once per process (the first ring's open).
     *
     * @param arena where the probe's buffer lives
     * @param callState where {@code errno} is captured
     * @param ringFd an open ring
     */
    static void probeOpcodes(Arena arena, MemorySegment callState, int ringFd) {
        if (ftruncateOpcode == null) {
            ftruncateOpcode = probeSupports(arena, callState, ringFd, OP_FTRUNCATE);
        }
        if (fallocateOpcode == null) {
            fallocateOpcode = probeSupports(arena, callState, ringFd, OP_FALLOCATE);
        }
        if (pathOpcodes == null) {
            pathOpcodes = probeSupports(arena, callState, ringFd, OP_OPENAT)
                    && probeSupports(arena, callState, ringFd, OP_STATX)
                    && probeSupports(arena, callState, ringFd, OP_UNLINKAT)
                    && probeSupports(arena, callState, ringFd, OP_MKDIRAT)
                    && probeSupports(arena, callState, ringFd, OP_RENAMEAT);
        }
    }

    /**
     * Whether the kernel supports an opcode, by {@code IORING_REGISTER_PROBE} (Linux 5.6+); false if the probe
     * itself is refused.
     */
    private static boolean probeSupports(Arena arena, MemorySegment callState, int ringFd, byte opcode) {
        MemorySegment probe = arena.allocate(PROBE_HEADER_BYTES + (long) PROBE_OPS * PROBE_OP_BYTES, 8);
        long result = Libc.syscall(callState, Libc.SYS_IO_URING_REGISTER, ringFd, REGISTER_PROBE, probe.address(),
                PROBE_OPS, 0, 0);
        if (result < 0) {
            return false;
        }
        int lastOp = Byte.toUnsignedInt(probe.get(JAVA_BYTE, 0));
        if (opcode > lastOp) {
            return false;
        }
        long entry = PROBE_HEADER_BYTES + (long) opcode * PROBE_OP_BYTES;
        return (probe.get(JAVA_SHORT, entry + 2) & PROBE_OP_SUPPORTED) != 0;
    }

    /**
     * Whether {@code FTRUNCATE} submissions use the kernel's opcode (else an offloaded {@code ftruncate}).
     *
     * @return true on Linux 6.9 and later, once a ring was opened
     */
    static boolean usesFtruncateOpcode() {
        return Boolean.TRUE.equals(ftruncateOpcode);
    }

    /**
     * Test hook: with {@code false}, every later {@code FTRUNCATE} takes the offload path, as on a kernel without
     * the opcode; {@code null} makes the next ring's open probe again.
     */
    static void assumeFtruncateOpcode(Boolean supported) {
        ftruncateOpcode = supported;
    }

    /**
     * Whether {@code FALLOCATE} submissions use the kernel's opcode (else an offloaded {@code fallocate}).
     *
     * @return true on Linux 5.6 and later, once a ring was opened
     */
    static boolean usesFallocateOpcode() {
        return Boolean.TRUE.equals(fallocateOpcode);
    }

    /**
     * Test hook: with {@code false}, every later {@code FALLOCATE} takes the offload path, as on a kernel without
     * the opcode; {@code null} makes the next ring's open probe again.
     */
    static void assumeFallocateOpcode(Boolean supported) {
        fallocateOpcode = supported;
    }

    /**
     * Whether path submissions ({@code OPENAT}, {@code MKDIRAT}, {@code UNLINKAT}, {@code RENAMEAT},
     * {@code STATX}) use the kernel's opcodes (else offloaded system calls).
     *
     * @return true on Linux 5.15 and later, once a ring was opened
     */
    static boolean usesPathOpcodes() {
        return Boolean.TRUE.equals(pathOpcodes);
    }

    /**
     * Test hook: with {@code false}, every later path submission takes the offload path, as on a kernel without
     * the opcodes; {@code null} makes the next ring's open probe again.
     */
    static void assumePathOpcodes(Boolean supported) {
        pathOpcodes = supported;
    }

    /**
     * Names setup flags, e.g. {@code SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG|SUBMIT_ALL|CQSIZE}, or {@code none}.
     *
     * @param flags {@code IORING_SETUP_*} bits
     * @return their names
     */
    static String describeSetupFlags(int flags) {
        StringJoiner names = new StringJoiner("|");
        if ((flags & SETUP_SINGLE_ISSUER) != 0) {
            names.add("SINGLE_ISSUER");
        }
        if ((flags & SETUP_DEFER_TASKRUN) != 0) {
            names.add("DEFER_TASKRUN");
        }
        if ((flags & SETUP_TASKRUN_FLAG) != 0) {
            names.add("TASKRUN_FLAG");
        }
        if ((flags & SETUP_SUBMIT_ALL) != 0) {
            names.add("SUBMIT_ALL");
        }
        if ((flags & SETUP_CQSIZE) != 0) {
            names.add("CQSIZE");
        }
        return names.length() == 0 ? "none" : names.toString();
    }
}
