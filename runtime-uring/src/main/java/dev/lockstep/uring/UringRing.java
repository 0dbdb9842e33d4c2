package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * A {@link Ring} on a Linux io_uring instance, driven through FFM.
 *
 * <h2>Set-up</h2>
 * The ring is created with {@code IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN | SUBMIT_ALL | CQSIZE} and a
 * completion queue of twice the entries. A kernel that refuses that ({@code EINVAL}, older than 6.1) gets, in
 * turn, {@code SUBMIT_ALL | CQSIZE}, {@code CQSIZE}, and no flags; the first refusal is logged once as a
 * warning and {@link #setupFlags()} names the flags in effect. The kernel must report
 * {@code IORING_FEAT_EXT_ARG} (Linux 5.11+), which timed waits use; otherwise opening fails with
 * {@code ENOSYS}. The rings' shared memory is mapped into a confined {@link Arena} created on the opening
 * thread and unmapped by {@link #close()}.
 *
 * <h2>Threads</h2>
 * The thread that opens the ring owns it, and must be a platform thread: with {@code SINGLE_ISSUER} the
 * kernel binds the ring to that one kernel task. {@link #stage}, {@link #enter} and {@link #close} throw
 * {@link WrongThreadException} on any other thread. {@link #wake()} may be called from any thread, also after
 * {@link #close()} (then it does nothing). {@link #allocate}, {@link #free}, {@link #nowNanos()} and
 * {@link #entries()} are thread-safe, so requests may be built on any thread.
 *
 * <h2>Submitting reads and writes in small batches</h2>
 * Entries are submitted by {@link #enter}, except that every {@value #READ_WRITE_SUBMIT_BATCH}th read or write
 * staged since the last submission is submitted at once by {@link #stage} (one {@code io_uring_enter} without
 * {@code GETEVENTS}; its completions still come from {@link #enter}). A turn that stages 30 direct reads thus
 * hands them to the block layer 4 at a time rather than all at once: measured on a virtio disk at queue
 * depth 32, reads submitted in one call completed about together, so each waited for its whole batch;
 * batches of at most 4 instead of about 8 cut the median read from 430–530 µs to 320–380 µs in the same
 * rounds (BENCHMARKS.md, "O_DIRECT at depth 32: reads submitted 4 at a time"), and cost warm page-cache reads
 * no CPU per read that those rounds could tell apart. Other opcodes (a NOP, a receive) never reach a disk and
 * stay batched into one call per turn.
 *
 * <h2>Wake-ups</h2>
 * An eventfd is polled by the ring itself ({@code IORING_OP_POLL_ADD}, multishot where the kernel has it)
 * under the reserved user data {@link #WAKE_USER_DATA}, whose completions are consumed here and never
 * reach a {@link CompletionSink}. {@link #wake()} writes to the eventfd, which is the only thing another
 * thread may do to a single-issuer ring; a wake with nobody waiting leaves the eventfd readable, so the next
 * {@link #enter} returns promptly.
 *
 * <h2>Blocking calls</h2>
 * A {@link dev.lockstep.kernel.Opcode#BLOCKING_CALL} takes no SQE: {@link #stage} hands it to the process's
 * {@link Offload} threads, which post its completion back ({@link #offloaded}) and wake the ring; {@link #enter}
 * delivers those completions beside the CQEs. So the engine sees one kind of request whatever runs it.
 * {@code FTRUNCATE} is a real opcode ({@code IORING_OP_FTRUNCATE}, Linux 6.9+, found with
 * {@code IORING_REGISTER_PROBE}); on older kernels it is an {@code ftruncate} run the same offloaded way. So are
 * the path opcodes ({@code OPENAT}, {@code MKDIRAT}, {@code UNLINKAT}, {@code RENAMEAT}, {@code STATX}) on a
 * kernel older than 5.15: each runs its one system call on an offload thread.
 *
 * <h2>Errors</h2>
 * Failures of the ring itself are {@link KernelException}s naming the call and {@code io_uring fd N}.
 * Submissions the kernel cannot take ({@link Submission#validate()}: a heap buffer, a length past the buffer, a
 * negative offset; and the reserved user data) are rejected by {@link #stage} with
 * {@link IllegalArgumentException} before anything is written.
 *
 * <h2>Size</h2>
 * Over 600 lines (about 1,200, a sixth of them this documentation): set-up with its fallbacks, the ring fd's
 * registration, staging with its checks, entering and reaping, the wake poll, offloaded completions and the
 * native buffer cache all work on the same mapped queues and owner-thread state. Split into classes, each part
 * would reach into the others' fields (the queue pointers, the pending submission count, the owner check); the
 * system calls themselves are already elsewhere ({@link Libc}, {@link Offload}).
 */
public final class UringRing implements Ring {
    /**
     * The user data of the ring's own wake-up poll: every bit set. The engine never uses it (its user data
     * never has every bit set), {@link #stage} rejects it, and its completions are never delivered.
     */
    public static final long WAKE_USER_DATA = -1L;

    static final int SETUP_CQSIZE = 1 << 3;
    static final int SETUP_SUBMIT_ALL = 1 << 7;
    static final int SETUP_SINGLE_ISSUER = 1 << 12;
    static final int SETUP_DEFER_TASKRUN = 1 << 13;

    /** Most capable first: DEFER_TASKRUN needs 6.1, SUBMIT_ALL 5.18, CQSIZE 5.5. */
    private static final int[] SETUP_CHOICES = {
        SETUP_SINGLE_ISSUER | SETUP_DEFER_TASKRUN | SETUP_SUBMIT_ALL | SETUP_CQSIZE,
        SETUP_SUBMIT_ALL | SETUP_CQSIZE,
        SETUP_CQSIZE,
        0,
    };
    /** The first choice this kernel has not refused; rings after the first skip the refused ones. */
    private static volatile int firstAcceptedSetupChoice;

    private static final int FEATURE_SINGLE_MMAP = 1;
    private static final int FEATURE_EXT_ARG = 1 << 8;

    private static final long MMAP_OFFSET_SQ_RING = 0L;
    private static final long MMAP_OFFSET_CQ_RING = 0x8000000L;
    private static final long MMAP_OFFSET_SQES = 0x10000000L;

    private static final int PARAMS_BYTES = 120;
    private static final long PARAMS_SQ_ENTRIES = 0;
    private static final long PARAMS_CQ_ENTRIES = 4;
    private static final long PARAMS_FLAGS = 8;
    private static final long PARAMS_FEATURES = 20;
    private static final long PARAMS_SQ_OFFSETS = 40;
    private static final long PARAMS_CQ_OFFSETS = 80;

    private static final int SQE_BYTES = 64;
    private static final int CQE_BYTES = 16;
    private static final int GETEVENTS_ARG_BYTES = 24;
    private static final int TIMESPEC_BYTES = 16;

    private static final int ENTER_GETEVENTS = 1;
    private static final int ENTER_EXT_ARG = 8;
    private static final int ENTER_REGISTERED_RING = 16;
    private static final int REGISTER_RING_FDS = 20;
    private static final int UNREGISTER_RING_FDS = 21;
    /** {@code struct io_uring_rsrc_update}: {@code u32 offset, u32 resv, u64 data}. */
    private static final int RSRC_UPDATE_BYTES = 16;
    /** The offset that asks the kernel to choose a free slot of the task's registered rings. */
    private static final int RSRC_OFFSET_ANY = -1;
    private static final int SQ_FLAG_CQ_OVERFLOW = 2;
    private static final int CQE_FLAG_MORE = 2;

    private static final byte OP_NOP = 0;
    private static final byte OP_FSYNC = 3;
    private static final byte OP_POLL_ADD = 6;
    private static final byte OP_ACCEPT = 13;
    private static final byte OP_ASYNC_CANCEL = 14;
    private static final byte OP_CONNECT = 16;
    private static final byte OP_READ = 22;
    private static final byte OP_WRITE = 23;
    private static final byte OP_SEND = 26;
    private static final byte OP_RECV = 27;
    private static final byte OP_FTRUNCATE = 55;
    private static final byte OP_OPENAT = 18;
    private static final byte OP_STATX = 21;
    private static final byte OP_UNLINKAT = 36;
    private static final byte OP_MKDIRAT = 37;
    private static final byte OP_RENAMEAT = 35;
    /** Mode of a file an {@code OPENAT} creates, as {@link LinuxSystemCalls#open}'s. */
    private static final int FILE_MODE = 0644;
    /** Mode of a directory a {@code MKDIRAT} creates, as {@link LinuxSystemCalls#mkdir}'s. */
    private static final int DIRECTORY_MODE = 0755;
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
     * Whether this kernel runs every path opcode the engine uses ({@code OPENAT}, {@code STATX}: Linux 5.6;
     * {@code UNLINKAT}, {@code RENAMEAT}: 5.11; {@code MKDIRAT}: 5.15), probed with {@link #ftruncateOpcode}; null until then. Where
     * it does not, each of them runs its system call on an {@link Offload} thread instead, completing the same way.
     */
    private static volatile Boolean pathOpcodes;
    private static final int FSYNC_FLAG_DATASYNC = 1;
    private static final int POLL_ADD_MULTI = 1;
    private static final int POLLIN = 1;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    static final int SMALLEST_CACHED_BYTES = 64;
    static final int LARGEST_CACHED_BYTES = 64 * 1024;
    /** What one size class of the buffer cache holds besides its 64 buffers at most: 64 of 4 KiB, 4 of 64 KiB. */
    static final int CACHED_BYTES_PER_CLASS = 256 * 1024;
    private static final VarHandle SHARED_INT = JAVA_INT.varHandle();
    /** What {@link #wake()} writes to the eventfd; global because wakes come from any thread. */
    private static final MemorySegment EVENTFD_INCREMENT = Arena.global().allocateFrom(JAVA_LONG, 1L);
    private static final System.Logger LOG = System.getLogger(UringRing.class.getName());

    private final int entries;
    private final Thread owner;
    private final Arena arena;
    /** The one {@code struct iovec} of {@link #readWithoutWaiting}: base and length, owner thread only. */
    private final MemorySegment readVector;
    /** The empty path of a {@code STATX} of an fd ({@code AT_EMPTY_PATH}): one NUL byte, for the ring's life. */
    private final MemorySegment emptyPath;
    private final MemorySegment callState;
    private final int ringFd;
    private final int eventFd;
    private final int setupFlags;
    private final String subject;

    private final MemorySegment sqRing;
    private final MemorySegment cqRing;
    private final MemorySegment sqes;
    private final int sqEntries;
    private final int sqMask;
    private final long sqHeadOffset;
    private final long sqTailOffset;
    private final long sqFlagsOffset;
    private final int cqMask;
    private final long cqHeadOffset;
    private final long cqTailOffset;
    private final long cqesOffset;

    private final MemorySegment geteventsArgument;
    private final MemorySegment timeout;
    private final MemorySegment eventFdDrain;

    /**
     * The process's one mapping from {@link System#nanoTime()} ({@code CLOCK_MONOTONIC}) to epoch time, taken when
     * the class loads: every ring of the process reads the same clock, so readings on different workers compare
     * and never go back from one worker to another.
     */
    private static final long NANO_TIME_AT_LOAD = System.nanoTime();
    private static final long EPOCH_NANOS_AT_LOAD = epochNanosNow();

    /**
     * Wakers inside {@link #wake()} right now, or {@link #EVENTFD_CLOSED} once {@link #close()} closed the eventfd.
     * A counter rather than a monitor: {@code wake()} is called from fibers, and a virtual thread that contends a
     * monitor unmounts and waits to be rescheduled by the very worker that may be closing this ring.
     */
    private final java.util.concurrent.atomic.AtomicInteger wakersInside = new java.util.concurrent.atomic.AtomicInteger();
    private static final int EVENTFD_CLOSED = -1;

    /**
     * Buffers freed on the owning thread, kept for its next {@link #allocate} of the same size class: addresses
     * of {@code calloc}ed blocks of {@code SMALLEST_CACHED_BYTES << class} bytes, a stack per class. Owner thread
     * only; freed by {@link #close()}.
     */
    private final long[][] cachedAddresses = newBufferCache();
    private final int[] cachedCount = new int[cachedAddresses.length];

    /**
     * Completions of {@link dev.lockstep.kernel.Opcode#BLOCKING_CALL}s, posted by offload threads
     * ({@link #offloaded}) and delivered by {@link #enter} like CQEs. The offer publishes what the call wrote;
     * the poll on this thread reads it.
     */
    private final java.util.concurrent.ConcurrentLinkedQueue<long[]> offloadedCompletions =
            new java.util.concurrent.ConcurrentLinkedQueue<>();

    /**
     * The most reads and writes one {@code io_uring_enter} submits: see "Submitting reads and writes in small
     * batches" above.
     */
    static final int READ_WRITE_SUBMIT_BATCH = 4;

    /** Entries staged up to here; published to the kernel at the next enter. */
    private int sqStagedTail;
    /** Reads and writes staged since the entries were last submitted. */
    private int readsWritesUnsubmitted;
    private int cqConsumedHead;
    private boolean multishotWakePoll = true;
    private boolean wakePollNeedsArming;
    private boolean wokenInThisEnter;
    private boolean closed;
    /**
     * The descriptor every {@code io_uring_enter} names: the ring's slot among the owner thread's registered
     * rings ({@link #registerRingFd}), or the ring's fd where the kernel refused to register it.
     */
    private int enterFd;
    /** {@code ENTER_REGISTERED_RING} when {@link #enterFd} is a registered slot, else 0. */
    private int enterFdFlag;

    private UringRing(int entries, Arena arena, MemorySegment callState, int ringFd, int eventFd,
                      MemorySegment params) {
        this.entries = entries;
        this.owner = Thread.currentThread();
        this.arena = arena;
        this.emptyPath = arena.allocate(1);
        this.readVector = arena.allocate(16, 8);
        this.callState = callState;
        this.ringFd = ringFd;
        this.enterFd = ringFd;
        this.eventFd = eventFd;
        this.subject = "io_uring fd " + ringFd;
        this.setupFlags = params.get(JAVA_INT, PARAMS_FLAGS);
        int features = params.get(JAVA_INT, PARAMS_FEATURES);
        if ((features & FEATURE_EXT_ARG) == 0) {
            throw new KernelException(Errno.ENOSYS, "io_uring_setup",
                    subject + ": the kernel lacks IORING_FEAT_EXT_ARG (Linux 5.11+), needed for timed waits");
        }

        this.sqEntries = params.get(JAVA_INT, PARAMS_SQ_ENTRIES);
        int cqEntries = params.get(JAVA_INT, PARAMS_CQ_ENTRIES);
        this.sqHeadOffset = params.get(JAVA_INT, PARAMS_SQ_OFFSETS);
        this.sqTailOffset = params.get(JAVA_INT, PARAMS_SQ_OFFSETS + 4);
        long sqMaskOffset = params.get(JAVA_INT, PARAMS_SQ_OFFSETS + 8);
        this.sqFlagsOffset = params.get(JAVA_INT, PARAMS_SQ_OFFSETS + 16);
        long sqArrayOffset = params.get(JAVA_INT, PARAMS_SQ_OFFSETS + 24);
        this.cqHeadOffset = params.get(JAVA_INT, PARAMS_CQ_OFFSETS);
        this.cqTailOffset = params.get(JAVA_INT, PARAMS_CQ_OFFSETS + 4);
        long cqMaskOffset = params.get(JAVA_INT, PARAMS_CQ_OFFSETS + 8);
        this.cqesOffset = params.get(JAVA_INT, PARAMS_CQ_OFFSETS + 20);

        long sqRingBytes = sqArrayOffset + 4L * sqEntries;
        long cqRingBytes = cqesOffset + (long) CQE_BYTES * cqEntries;
        if ((features & FEATURE_SINGLE_MMAP) != 0) {
            this.sqRing = map(Math.max(sqRingBytes, cqRingBytes), MMAP_OFFSET_SQ_RING);
            this.cqRing = sqRing;
        } else {
            this.sqRing = map(sqRingBytes, MMAP_OFFSET_SQ_RING);
            this.cqRing = map(cqRingBytes, MMAP_OFFSET_CQ_RING);
        }
        this.sqes = map((long) SQE_BYTES * sqEntries, MMAP_OFFSET_SQES);
        this.sqMask = sqRing.get(JAVA_INT, sqMaskOffset);
        this.cqMask = cqRing.get(JAVA_INT, cqMaskOffset);
        // Entry i of the SQ always uses SQE i, so the indirection array is filled once.
        for (int index = 0; index < sqEntries; index++) {
            sqRing.set(JAVA_INT, sqArrayOffset + 4L * index, index);
        }
        this.sqStagedTail = (int) SHARED_INT.getAcquire(sqRing, sqTailOffset);
        this.cqConsumedHead = (int) SHARED_INT.getAcquire(cqRing, cqHeadOffset);

        this.timeout = arena.allocate(TIMESPEC_BYTES, 8);
        this.geteventsArgument = arena.allocate(GETEVENTS_ARG_BYTES, 8);
        geteventsArgument.set(JAVA_LONG, 16, timeout.address());
        this.eventFdDrain = arena.allocate(JAVA_LONG);
    }

    private static long epochNanosNow() {
        Instant now = Instant.now();
        return now.getEpochSecond() * NANOS_PER_SECOND + now.getNano();
    }

    /**
     * Opens a ring owned by the calling thread.
     *
     * @param entries the submission queue size, a power of two the caller has validated
     * @return the ring
     * @throws KernelException if the kernel refuses (named {@code io_uring_setup}, {@code mmap}, ...)
     * @throws IllegalStateException on a virtual thread, which the kernel cannot tell apart from its carrier
     */
    static UringRing open(int entries) {
        if (Thread.currentThread().isVirtual()) {
            throw new IllegalStateException("an io_uring ring must be opened by the platform thread that will "
                    + "drive it, not by virtual thread " + Thread.currentThread());
        }
        // Shared, not confined: the ring's memory is touched by its owner's fibers too (inline turns), which are
        // virtual threads the arena's confinement check would refuse, though they run on the owner's thread.
        // Who may touch it is this class's own check (requireOwner); the arena only keeps it alive until close.
        Arena arena = Arena.ofShared();
        MemorySegment callState = Libc.newCallState(arena);
        int ringFd = -1;
        int eventFd = -1;
        UringRing ring = null;
        try {
            MemorySegment params = arena.allocate(PARAMS_BYTES, 8);
            ringFd = setup(entries, params, callState);
            eventFd = (int) Libc.check(Libc.invoke(callState, state ->
                    (int) Libc.EVENTFD.invokeExact(state, 0, Libc.EFD_NONBLOCK | Libc.EFD_CLOEXEC)),
                    "eventfd", "io_uring fd " + ringFd);
            ring = new UringRing(entries, arena, callState, ringFd, eventFd, params);
            if (ftruncateOpcode == null) {
                ftruncateOpcode = probeSupports(arena, callState, ringFd, OP_FTRUNCATE);
            }
            if (pathOpcodes == null) {
                pathOpcodes = probeSupports(arena, callState, ringFd, OP_OPENAT)
                        && probeSupports(arena, callState, ringFd, OP_STATX)
                        && probeSupports(arena, callState, ringFd, OP_UNLINKAT)
                        && probeSupports(arena, callState, ringFd, OP_MKDIRAT)
                        && probeSupports(arena, callState, ringFd, OP_RENAMEAT);
            }
            ring.registerRingFd();
            ring.armWakePollNow();
            return ring;
        } catch (RuntimeException | Error failure) {
            closeQuietly(callState, eventFd);
            if (ring != null) {
                ring.unregisterRingFd(); // the registration holds the ring's file: the close alone would not free it
            }
            closeQuietly(callState, ringFd);
            arena.close();
            throw failure;
        }
    }

    /**
     * Registers the ring's fd with the owner thread ({@code IORING_REGISTER_RING_FDS}, Linux 5.18+), so every
     * {@code io_uring_enter} names the registered slot with {@code IORING_ENTER_REGISTERED_RING} and the kernel
     * skips looking the fd up and taking and dropping a reference to its file on every call ({@code fget} and
     * {@code fput}: 4.9 % of the worker thread's samples of a NOP round trip before, none after; BENCHMARKS.md,
     * "The ring's fd registered"). The registration belongs
     * to the calling kernel task, which is why only the owner may enter: its fibers run on it, so they share it.
     * A kernel that refuses keeps the plain fd; nothing else changes. The registration holds a reference to the
     * ring's file, so {@link #close()} unregisters before it closes the fd.
     */
    private void registerRingFd() {
        MemorySegment update = arena.allocate(RSRC_UPDATE_BYTES, 8);
        update.set(JAVA_INT, 0, RSRC_OFFSET_ANY);
        update.set(JAVA_LONG, 8, ringFd);
        long result = Libc.syscall(callState, Libc.SYS_IO_URING_REGISTER, ringFd, REGISTER_RING_FDS,
                update.address(), 1, 0, 0);
        if (result == 1) {
            enterFd = update.get(JAVA_INT, 0);
            enterFdFlag = ENTER_REGISTERED_RING;
        }
    }

    /** Undoes {@link #registerRingFd}, on the owner thread; quietly, as a close does. */
    private void unregisterRingFd() {
        if (enterFdFlag == 0) {
            return;
        }
        MemorySegment update = arena.allocate(RSRC_UPDATE_BYTES, 8);
        update.set(JAVA_INT, 0, enterFd);
        Libc.syscall(callState, Libc.SYS_IO_URING_REGISTER, ringFd, UNREGISTER_RING_FDS, update.address(), 1, 0, 0);
        enterFdFlag = 0;
        enterFd = ringFd;
    }

    /**
     * Whether the ring's fd is registered with its owner thread, so that enters skip the fd lookup.
     *
     * @return true where the kernel took the registration
     */
    boolean ringFdRegistered() {
        return enterFdFlag != 0;
    }

    /**
     * What {@code io_uring_enter} is given: the registered slot, or the ring's fd.
     *
     * @return the descriptor
     */
    int enterDescriptor() {
        return enterFd;
    }

    /**
     * The ring's own fd, which {@code io_uring_register} takes; for tests.
     *
     * @return the fd
     */
    int ringFd() {
        return ringFd;
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
        return (probe.get(java.lang.foreign.ValueLayout.JAVA_SHORT, entry + 2) & PROBE_OP_SUPPORTED) != 0;
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
     * Whether path submissions ({@code OPENAT}, {@code MKDIRAT}, {@code UNLINKAT}, {@code RENAMEAT}, {@code STATX}) use the
     * kernel's opcodes (else offloaded system calls).
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

    /** Closes an fd of this ring, if open; a failed close has released the fd anyway (Linux). */
    private static void closeQuietly(MemorySegment callState, int fd) {
        if (fd >= 0) {
            Libc.invoke(callState, state -> (int) Libc.CLOSE.invokeExact(state, fd));
        }
    }

    private static long[][] newBufferCache() {
        int classes = Long.numberOfTrailingZeros(LARGEST_CACHED_BYTES)
                - Long.numberOfTrailingZeros(SMALLEST_CACHED_BYTES) + 1;
        long[][] cache = new long[classes][];
        for (int sizeClass = 0; sizeClass < classes; sizeClass++) {
            cache[sizeClass] = new long[Math.min(64, CACHED_BYTES_PER_CLASS / (SMALLEST_CACHED_BYTES << sizeClass))];
        }
        return cache;
    }

    private static int setup(int entries, MemorySegment params, MemorySegment callState) {
        int firstChoice = firstAcceptedSetupChoice;
        for (int choice = firstChoice; ; choice++) {
            int flags = SETUP_CHOICES[choice];
            params.fill((byte) 0);
            params.set(JAVA_INT, PARAMS_FLAGS, flags);
            if ((flags & SETUP_CQSIZE) != 0) {
                params.set(JAVA_INT, PARAMS_CQ_ENTRIES, 2 * entries);
            }
            long result;
            do {
                result = Libc.syscall(callState, Libc.SYS_IO_URING_SETUP, entries, params.address(), 0, 0, 0, 0);
            } while (result == -Libc.EINTR);
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

    // Restricted: the kernel tells us the mapping's size; tying it to the arena makes close() unmap it.
    @SuppressWarnings("restricted")
    private MemorySegment map(long bytes, long offset) {
        return Libc.mmap(callState, bytes, Libc.PROT_READ_WRITE, Libc.MAP_SHARED_POPULATE, ringFd, offset, subject)
                .reinterpret(bytes, arena, mapping -> Libc.munmapQuietly(mapping, bytes));
    }

    /**
     * Names setup flags, e.g. {@code SINGLE_ISSUER|DEFER_TASKRUN|SUBMIT_ALL|CQSIZE}, or {@code none}.
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
        if ((flags & SETUP_SUBMIT_ALL) != 0) {
            names.add("SUBMIT_ALL");
        }
        if ((flags & SETUP_CQSIZE) != 0) {
            names.add("CQSIZE");
        }
        return names.length() == 0 ? "none" : names.toString();
    }

    /**
     * The {@code IORING_SETUP_*} flags this ring was created with, e.g.
     * {@code SINGLE_ISSUER|DEFER_TASKRUN|SUBMIT_ALL|CQSIZE}; fewer on kernels that refused those.
     *
     * @return the flags' names, {@code none} for none
     */
    public String setupFlags() {
        return describeSetupFlags(setupFlags);
    }

    @Override
    public int entries() {
        return entries;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Nothing reaches the kernel until the next {@link #enter}, except a read or write that makes
     * {@value #READ_WRITE_SUBMIT_BATCH} since the last submission: then every staged entry is submitted here
     * (see "Submitting reads and writes in small batches"). A failure of that submission is left for
     * {@link #enter}, which submits what the kernel did not take and reports a failed ring.
     *
     * @throws IllegalArgumentException what {@link Submission#validate()} refuses, or if the user data (or a
     *     cancellation's target) is {@link #WAKE_USER_DATA}
     * @throws WrongThreadException off the owning thread
     * @throws IllegalStateException after {@link #close()}
     */
    @Override
    public boolean stage(Submission submission) {
        requireOwnerAndOpen();
        Objects.requireNonNull(submission, "submission");
        submission.validate();
        long userData = submission.userData;
        if (userData == WAKE_USER_DATA) {
            throw new IllegalArgumentException("user data 0x" + Long.toHexString(userData)
                    + " is reserved for the ring's wake-up: " + submission);
        }
        if (freeSlots() == 0) {
            return false;
        }
        int fd = submission.fd;
        switch (submission.opcode) {
            case NOP -> writeSqe(OP_NOP, -1, 0, 0, 0, 0, userData);
            case READ -> {
                writeSqe(OP_READ, fd, submission.offset, submission.buffer.address(), submission.length,
                        submission.rwFlags, userData);
                submitIfReadWriteBatchFull();
            }
            case WRITE -> {
                writeSqe(OP_WRITE, fd, submission.offset, submission.buffer.address(), submission.length,
                        submission.rwFlags, userData);
                submitIfReadWriteBatchFull();
            }
            case FSYNC -> writeSqe(OP_FSYNC, fd, 0, 0, 0,
                    (submission.flags & Submission.FSYNC_DATASYNC) != 0 ? FSYNC_FLAG_DATASYNC : 0, userData);
            case RECV -> writeSqe(OP_RECV, fd, 0, submission.buffer.address(), submission.length, 0, userData);
            // A send to a reset peer must fail with EPIPE, not raise SIGPIPE in the JVM.
            case SEND -> writeSqe(OP_SEND, fd, 0, submission.buffer.address(), submission.length,
                    Libc.MSG_NOSIGNAL, userData);
            case ACCEPT -> writeSqe(OP_ACCEPT, fd, 0, 0, 0, Libc.SOCK_CLOEXEC, userData);
            // CONNECT carries the sockaddr's length in the offset field.
            case CONNECT -> writeSqe(OP_CONNECT, fd, submission.length, submission.buffer.address(), 0, 0, userData);
            // IORING_OP_FTRUNCATE (Linux 6.9+) takes the new length in the offset field; older kernels get an
            // ftruncate on an offload thread, which completes the same way.
            case FTRUNCATE -> {
                long length = submission.offset;
                if (usesFtruncateOpcode()) {
                    writeSqe(OP_FTRUNCATE, fd, length, 0, 0, 0, userData);
                } else {
                    Offload.instance().submit(this, userData, () -> {
                        try {
                            LinuxSystemCalls.instance().truncate(fd, length);
                            return 0;
                        } catch (KernelException refused) {
                            return -refused.errno();
                        }
                    });
                }
            }
            // The path opcodes: the path is a NUL-terminated string in the submission's buffer.
            case OPENAT -> {
                long path = submission.buffer.address();
                int flags = LinuxSystemCalls.nativeOpenFlags(submission.flags);
                if (usesPathOpcodes()) {
                    writeSqe(OP_OPENAT, fd, 0, path, FILE_MODE, flags, userData);
                } else {
                    String name = pathOf(submission);
                    int engineFlags = submission.flags; // the submission is the engine's again once staged
                    offloadCall(userData, () -> LinuxSystemCalls.instance().open(name, engineFlags));
                }
            }
            case MKDIRAT -> {
                long path = submission.buffer.address();
                if (usesPathOpcodes()) {
                    writeSqe(OP_MKDIRAT, fd, 0, path, DIRECTORY_MODE, 0, userData);
                } else {
                    String name = pathOf(submission);
                    offloadCall(userData, () -> {
                        LinuxSystemCalls.instance().mkdir(name);
                        return 0;
                    });
                }
            }
            case UNLINKAT -> {
                long path = submission.buffer.address();
                int flags = submission.flags & Submission.AT_REMOVEDIR;
                if (usesPathOpcodes()) {
                    writeSqe(OP_UNLINKAT, fd, 0, path, 0, flags, userData);
                } else {
                    String name = pathOf(submission);
                    offloadCall(userData, () -> {
                        if (flags != 0) {
                            LinuxSystemCalls.instance().rmdir(name);
                        } else {
                            LinuxSystemCalls.instance().unlink(name);
                        }
                        return 0;
                    });
                }
            }
            case RENAMEAT -> {
                long from = submission.buffer.address();
                long to = submission.buffer.address() + submission.offset;
                if (usesPathOpcodes()) {
                    // renameat(olddirfd, oldpath, newdirfd, newpath, 0): the new directory fd goes in the length
                    // field, the new path's address in the offset field.
                    writeSqe(OP_RENAMEAT, fd, to, from, Submission.AT_FDCWD, 0, userData);
                } else {
                    String fromName = pathOf(submission);
                    String toName = secondPathOf(submission);
                    offloadCall(userData, () -> {
                        LinuxSystemCalls.instance().rename(fromName, toName);
                        return 0;
                    });
                }
            }
            case STATX -> {
                long status = submission.buffer.address();
                int mask = submission.flags;
                if (usesPathOpcodes()) {
                    // statx(fd, "", AT_EMPTY_PATH, mask, buffer): the buffer's address goes in the offset field.
                    writeSqe(OP_STATX, fd, status, emptyPath.address(), mask, Libc.AT_EMPTY_PATH, userData);
                } else {
                    MemorySegment buffer = submission.buffer;
                    offloadCall(userData, () -> {
                        LinuxSystemCalls.instance().statxInto(fd, mask, buffer);
                        return 0;
                    });
                }
            }
            case BLOCKING_CALL -> {
                // No SQE: the call runs on an offload thread and its completion comes back through offloaded().
                Offload.instance().submit(this, userData, Objects.requireNonNull(submission.call, "submission.call"));
            }
            case ASYNC_CANCEL -> {
                if (submission.target == WAKE_USER_DATA) {
                    throw new IllegalArgumentException("the ring's wake-up (user data 0x"
                            + Long.toHexString(WAKE_USER_DATA) + ") cannot be cancelled: " + submission);
                }
                writeSqe(OP_ASYNC_CANCEL, -1, 0, submission.target, 0, 0, userData);
                submitAndRunTaskWork();
            }
        }
        return true;
    }

    /** Runs one system call on an offload thread, completing with its result or {@code -errno}. */
    private void offloadCall(long userData, java.util.function.IntSupplier call) {
        Offload.instance().submit(this, userData, () -> {
            try {
                return call.getAsInt();
            } catch (KernelException refused) {
                return -refused.errno();
            }
        });
    }

    private static String secondPathOf(Submission submission) {
        byte[] bytes = submission.buffer.asSlice(submission.offset, submission.secondPathLength()).toArray(JAVA_BYTE);
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static String pathOf(Submission submission) {
        byte[] bytes = submission.buffer.asSlice(0, submission.length).toArray(JAVA_BYTE);
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Yes: {@link #readWithoutWaiting} asks the kernel's page cache. */
    @Override
    public boolean readsWithoutWaiting() {
        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>One {@code preadv2(fd, [buffer + at, length], 1, offset, RWF_NOWAIT)} on the owning thread (or a fiber
     * of its worker, on it): the kernel copies what its page cache holds and returns {@code -EAGAIN} instead of
     * starting device I/O or waiting for a page lock.
     *
     * <p>Asked first without capturing {@code errno} ({@link Libc#syscallUncaptured}), and again capturing it
     * only when that failed. Not for speed alone: the linker makes every downcall with
     * {@link java.lang.foreign.Linker.Option#captureCallState} take a 40-byte slice of the call-state segment
     * ({@code SharedUtils.checkCaptureSegment}), which only C2's escape analysis removes, and whether it does
     * depends on how the JIT happened to compile the caller: a read the page cache answers here is one per
     * {@code Blob.readInto}, and in some JVMs that slice was allocated on every one of them (63 heap bytes per
     * {@code readInto} instead of its 24-byte handle, {@code UringBufferAllocationTest}). The hit, the common
     * answer, now makes no call-state slice at all. Asking twice is safe: a {@code preadv2} that returned
     * {@code -1} copied no byte and, being positioned, moved no file offset, so the second call asks the same
     * question (its answer, bytes that arrived in the page cache meanwhile or the same error, is as good as the
     * first's); {@code -1} is never a byte count. What a miss pays is one more {@code preadv2} that finds the
     * same pages missing, before the ring's read that waits for the device anyway.
     *
     * @throws IllegalArgumentException if the buffer is not native, or the range does not fit it
     * @throws WrongThreadException off the owning thread
     * @throws IllegalStateException after {@link #close()}
     */
    @Override
    public int readWithoutWaiting(int fd, MemorySegment buffer, long at, int length, long offset) {
        requireOwnerAndOpen();
        Ring.checkReadWithoutWaiting(buffer, at, length, offset);
        readVector.set(JAVA_LONG, 0, buffer.address() + at);
        readVector.set(JAVA_LONG, 8, length);
        // On 64-bit targets the offset goes whole in pos_l; pos_h is 0. Uncaptured first, see above: only a
        // failure needs errno (EAGAIN, or the EOPNOTSUPP/EINVAL after which the engine stops asking).
        long read = Libc.syscallUncaptured(Libc.SYS_PREADV2, fd, readVector.address(), 1, offset, 0,
                Libc.RWF_NOWAIT);
        if (read != -1) {
            return (int) read;
        }
        return (int) Libc.syscall(callState, Libc.SYS_PREADV2, fd, readVector.address(), 1, offset, 0,
                Libc.RWF_NOWAIT);
    }

    /**
     * Submits every staged entry once {@value #READ_WRITE_SUBMIT_BATCH} reads and writes are staged. No
     * {@code GETEVENTS}: completions are {@link #enter}'s to deliver. Any result is fine here: entries the
     * kernel did not consume ({@code EAGAIN}, {@code EBUSY}, {@code EINTR}) stay published and the next
     * {@link #enterOnce} counts them again from the kernel's head; a failed ring fails that call too. So no
     * {@code errno} is captured ({@link Libc#syscallUncaptured}): nobody reads it, and a captured call would make
     * a call-state slice that only escape analysis removes (see {@link #readWithoutWaiting}) once every
     * {@value #READ_WRITE_SUBMIT_BATCH} reads or writes.
     */
    private void submitIfReadWriteBatchFull() {
        if (++readsWritesUnsubmitted < READ_WRITE_SUBMIT_BATCH) {
            return;
        }
        readsWritesUnsubmitted = 0;
        int toSubmit = sqStagedTail - (int) SHARED_INT.getAcquire(sqRing, sqHeadOffset);
        SHARED_INT.setRelease(sqRing, sqTailOffset, sqStagedTail);
        Libc.syscallUncaptured(Libc.SYS_IO_URING_ENTER, enterFd, toSubmit, 0, enterFdFlag, 0, 0);
    }

    /**
     * Submits every staged entry, a cancellation last, and runs the ring's deferred task work before anything is
     * staged after it. Why: with {@code DEFER_TASKRUN} the kernel takes a cancelled request off what it waits on
     * only in task work, which runs when this thread next asks for completions. A cancelled accept waiting on its
     * listener stays there until then, first in the listener's queue of exclusive waiters, and takes the wake-up of
     * the next connection for nobody: an accept staged after the cancellation (on the same listener, in the same
     * {@code io_uring_enter}) is never woken for that connection, which waits until another one arrives. Running
     * the task work here takes the cancelled accept off first. {@code GETEVENTS} with no minimum runs the task
     * work and waits for nothing; the completions stay for {@link #enter} to deliver. A cancellation is rare (a
     * close or a timeout of a request in flight), so the extra system call is too. Any result is fine, as in
     * {@link #submitIfReadWriteBatchFull}: entries not consumed stay published for the next enter.
     */
    private void submitAndRunTaskWork() {
        readsWritesUnsubmitted = 0;
        int toSubmit = sqStagedTail - (int) SHARED_INT.getAcquire(sqRing, sqHeadOffset);
        SHARED_INT.setRelease(sqRing, sqTailOffset, sqStagedTail);
        Libc.syscallUncaptured(Libc.SYS_IO_URING_ENTER, enterFd, toSubmit, 0, ENTER_GETEVENTS | enterFdFlag, 0, 0);
    }

    private int freeSlots() {
        return sqEntries - (sqStagedTail - (int) SHARED_INT.getAcquire(sqRing, sqHeadOffset));
    }

    private void writeSqe(byte opcode, int fd, long offset, long address, int length, int opcodeFlags,
                          long userData) {
        long sqe = (long) (sqStagedTail & sqMask) * SQE_BYTES;
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
        sqStagedTail++;
    }

    private void stageWakePoll() {
        writeSqe(OP_POLL_ADD, eventFd, 0, 0, multishotWakePoll ? POLL_ADD_MULTI : 0, POLLIN, WAKE_USER_DATA);
    }

    /** Arms the wake-up before the ring is handed out, so that no user entry ever has to make room for it. */
    private void armWakePollNow() {
        stageWakePoll();
        int result;
        do {
            result = enterOnce(false, Long.MAX_VALUE);
        } while (result == -Libc.EINTR || result == -Libc.EAGAIN || result == -Libc.EBUSY);
        Libc.check(result, "io_uring_enter", subject);
    }

    private void armWakePollIfNeeded() {
        if (wakePollNeedsArming && freeSlots() > 0) {
            stageWakePoll();
            wakePollNeedsArming = false;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Each {@code io_uring_enter} both submits and asks for completions ({@code GETEVENTS}), which a
     * {@code DEFER_TASKRUN} ring needs before any completion becomes visible. Entries the kernel did not
     * consume stay staged for the next call. A completion queue that overflowed into the kernel's backlog is
     * flushed and drained before returning. A timed-out wait returns normally. A wait also ends when
     * {@link #wake()} was called since the last return, then usually delivering 0.
     *
     * @throws KernelException naming {@code io_uring_enter} if the kernel fails the ring
     * @throws WrongThreadException off the owning thread
     * @throws IllegalStateException after {@link #close()}
     */
    @Override
    public int enter(boolean wait, long timeoutNanos, CompletionSink sink) {
        requireOwnerAndOpen();
        Objects.requireNonNull(sink, "sink");
        boolean timed = wait && timeoutNanos != Long.MAX_VALUE;
        long start = timed ? System.nanoTime() : 0;
        int delivered = 0;
        wokenInThisEnter = false;
        while (true) {
            armWakePollIfNeeded();
            delivered += deliverOffloaded(sink);
            // Without an armed wake-up poll a wait could miss a wake, so this turn only submits and re-arms.
            // A blocking call that finishes after the drain above wakes the ring, so this wait returns for it.
            boolean waitNow = wait && delivered == 0 && !wokenInThisEnter && !wakePollNeedsArming;
            long remaining = timed ? Math.max(0, timeoutNanos - (System.nanoTime() - start)) : Long.MAX_VALUE;
            int result = enterOnce(waitNow, remaining);
            delivered += reap(sink);
            delivered += deliverOffloaded(sink);
            if (result == -Libc.ETIME) {
                return delivered;
            }
            if (result == -Libc.EAGAIN || result == -Libc.EBUSY) {
                // Out of kernel resources or a backlog to flush: what could be reaped was; try again.
                Thread.yield();
                continue;
            }
            if (result == -Libc.EINTR) {
                if (!wait) {
                    continue;
                }
            } else if (result < 0) {
                throw new KernelException(-result, "io_uring_enter", subject);
            }
            if (!wait || delivered > 0 || wokenInThisEnter) {
                return delivered;
            }
            if (timed && System.nanoTime() - start >= timeoutNanos) {
                return delivered;
            }
        }
    }

    /**
     * A blocking call submitted here finished on an offload thread: queue its completion and wake the ring. Any
     * thread; after {@link #close()} the completion is dropped (the engine waits for every request before it
     * closes a ring, so only a ring that failed drops one).
     *
     * <p>No lost wake-up: the completion is queued before the wake, and {@link #enter} drains the queue before
     * it decides to wait; a wake written after that drain leaves the eventfd readable, so the wait returns.
     *
     * @param userData the call's user data
     * @param result its result
     */
    void offloaded(long userData, int result) {
        offloadedCompletions.offer(new long[] {userData, result});
        wake();
    }

    private int deliverOffloaded(CompletionSink sink) {
        int delivered = 0;
        long[] completion;
        while ((completion = offloadedCompletions.poll()) != null) {
            delivered++;
            sink.complete(completion[0], (int) completion[1], 0);
        }
        return delivered;
    }

    /** One {@code io_uring_enter} that publishes and submits every staged entry; a result or {@code -errno}. */
    private int enterOnce(boolean waitForOne, long timeoutNanos) {
        readsWritesUnsubmitted = 0;
        int toSubmit = sqStagedTail - (int) SHARED_INT.getAcquire(sqRing, sqHeadOffset);
        SHARED_INT.setRelease(sqRing, sqTailOffset, sqStagedTail);
        int flags = ENTER_GETEVENTS | enterFdFlag;
        long argument = 0;
        long argumentBytes = 0;
        if (waitForOne && timeoutNanos != Long.MAX_VALUE) {
            timeout.set(JAVA_LONG, 0, timeoutNanos / NANOS_PER_SECOND);
            timeout.set(JAVA_LONG, 8, timeoutNanos % NANOS_PER_SECOND);
            flags |= ENTER_EXT_ARG;
            argument = geteventsArgument.address();
            argumentBytes = GETEVENTS_ARG_BYTES;
        }
        int minComplete = waitForOne ? 1 : 0;
        if (argument == 0) {
            // Without errno first (Libc.syscallUncaptured): the common answer is a count. io_uring_enter returns
            // the number of entries it submitted whenever it submitted any, so -1 means it consumed none, and the
            // same call made again, capturing errno this time, submits the same entries: for EINTR, EAGAIN or
            // EBUSY it is what enter's loop would do next, and any other error recurs. Not for a timed wait,
            // whose ETIME comes after the timeout: asking again would wait a second timeout.
            long result = Libc.syscallUncaptured(Libc.SYS_IO_URING_ENTER, enterFd, toSubmit, minComplete, flags, 0, 0);
            if (result != -1) {
                return (int) result;
            }
        }
        return (int) Libc.syscall(callState, Libc.SYS_IO_URING_ENTER, enterFd, toSubmit, minComplete, flags,
                argument, argumentBytes);
    }

    /**
     * Submits the staged entries without asking for completions or reaping any: how a test makes more
     * completions than the completion queue holds, to check that none is lost.
     *
     * @return the number of entries submitted, or {@code -errno}
     */
    int submitWithoutReaping() {
        requireOwnerAndOpen();
        readsWritesUnsubmitted = 0;
        int toSubmit = sqStagedTail - (int) SHARED_INT.getAcquire(sqRing, sqHeadOffset);
        SHARED_INT.setRelease(sqRing, sqTailOffset, sqStagedTail);
        return (int) Libc.syscall(callState, Libc.SYS_IO_URING_ENTER, enterFd, toSubmit, 0, enterFdFlag, 0, 0);
    }

    /** Delivers every visible completion, flushing the kernel's overflow backlog into the queue first. */
    private int reap(CompletionSink sink) {
        int delivered = reapVisible(sink);
        while (((int) SHARED_INT.getAcquire(sqRing, sqFlagsOffset) & SQ_FLAG_CQ_OVERFLOW) != 0) {
            int result = (int) Libc.syscall(callState, Libc.SYS_IO_URING_ENTER, enterFd, 0, 0,
                    ENTER_GETEVENTS | enterFdFlag, 0, 0);
            if (result < 0 && result != -Libc.EINTR && result != -Libc.EAGAIN && result != -Libc.EBUSY) {
                throw new KernelException(-result, "io_uring_enter", subject);
            }
            delivered += reapVisible(sink);
        }
        return delivered;
    }

    private int reapVisible(CompletionSink sink) {
        int head = cqConsumedHead;
        int tail = (int) SHARED_INT.getAcquire(cqRing, cqTailOffset);
        int delivered = 0;
        try {
            while (head != tail) {
                long cqe = cqesOffset + (long) (head & cqMask) * CQE_BYTES;
                long userData = cqRing.get(JAVA_LONG, cqe);
                int result = cqRing.get(JAVA_INT, cqe + 8);
                int flags = cqRing.get(JAVA_INT, cqe + 12);
                head++;
                if (userData == WAKE_USER_DATA) {
                    onWakePollCompletion(result, flags);
                } else {
                    delivered++;
                    sink.complete(userData, result, flags);
                }
            }
        } finally {
            // Also when a sink throws: the completions it saw are consumed, the rest wait for the next enter.
            cqConsumedHead = head;
            SHARED_INT.setRelease(cqRing, cqHeadOffset, head);
        }
        return delivered;
    }

    private void onWakePollCompletion(int result, int flags) {
        wokenInThisEnter = true;
        if (result < 0) {
            if (!multishotWakePoll) {
                throw new KernelException(-result, "poll_add", "eventfd " + eventFd + " of " + subject);
            }
            // Kernels before 5.13 refuse multishot polls; a one-shot poll re-armed after each wake works on all.
            multishotWakePoll = false;
            wakePollNeedsArming = true;
            return;
        }
        // Drain before any re-arm: a wake written after this read leaves the eventfd readable for the new poll.
        long drained;
        do {
            drained = Libc.read(callState, eventFd, eventFdDrain, eventFdDrain.byteSize());
        } while (drained == -Libc.EINTR);
        if (drained < 0 && drained != -Libc.EAGAIN) {
            throw new KernelException((int) -drained, "read", "eventfd " + eventFd + " of " + subject);
        }
        if ((flags & CQE_FLAG_MORE) == 0) {
            wakePollNeedsArming = true;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>One {@code write} to the ring's eventfd per call; callers that wake often may coalesce. Does nothing
     * after {@link #close()}.
     */
    @Override
    public void wake() {
        while (true) {
            int inside = wakersInside.get();
            if (inside == EVENTFD_CLOSED) {
                return;
            }
            if (wakersInside.compareAndSet(inside, inside + 1)) {
                break;
            }
        }
        try {
            // The only failure is a saturated counter, which already makes the eventfd readable.
            Libc.writeIgnoringErrno(eventFd, EVENTFD_INCREMENT, EVENTFD_INCREMENT.byteSize());
        } finally {
            wakersInside.decrementAndGet();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Wall-clock time read once when the class loaded, plus {@link System#nanoTime()} since. Any thread.
     */
    @Override
    public long nowNanos() {
        return EPOCH_NANOS_AT_LOAD + (System.nanoTime() - NANO_TIME_AT_LOAD);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Native, zeroed, usable from any thread, independent of the ring's lifetime (free it with {@link #free} on
     * this or any ring of this kernel). Any thread.
     *
     * <p>Sizes up to {@value #LARGEST_CACHED_BYTES} bytes are rounded up to a power of two (at least
     * {@value #SMALLEST_CACHED_BYTES}) and, on the owning thread, taken from the ring's cache of buffers freed on
     * that thread (then zeroed with {@code fill}), so a request's buffer costs no {@code calloc} and {@code free}
     * per operation; elsewhere, and when the cache is empty, they come from {@code calloc}.
     *
     * @throws IllegalArgumentException if {@code bytes} is negative
     * @throws KernelException {@code ENOMEM} naming the size if there is no memory
     */
    @Override
    @SuppressWarnings("restricted") // calloc returns a bare pointer; its size is the one just asked for.
    public MemorySegment allocate(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative, was " + bytes);
        }
        if (bytes > LARGEST_CACHED_BYTES) {
            return callocated(bytes, bytes);
        }
        int sizeClass = sizeClass(bytes);
        if (onOwnerThread() && !closed && cachedCount[sizeClass] > 0) {
            int count = --cachedCount[sizeClass];
            long address = cachedAddresses[sizeClass][count];
            MemorySegment memory = MemorySegment.ofAddress(address).reinterpret(bytes);
            memory.fill((byte) 0);
            return memory;
        }
        // Always the class's whole capacity, on every thread, so that free may cache any buffer of the class.
        return callocated(SMALLEST_CACHED_BYTES << sizeClass, bytes);
    }

    @SuppressWarnings("restricted") // calloc returns a bare pointer to at least capacity >= bytes bytes.
    private static MemorySegment callocated(long capacity, long bytes) {
        // calloc(1, 0) may return NULL; asking for at least one byte keeps NULL meaning "out of memory".
        MemorySegment memory = Libc.calloc(1, Math.max(1, capacity));
        if (memory.address() == 0) {
            throw new KernelException(Errno.ENOMEM, "calloc", bytes + " bytes");
        }
        return memory.reinterpret(bytes);
    }

    /** The cache class of a size up to {@link #LARGEST_CACHED_BYTES}: capacity {@code SMALLEST << class}. */
    private static int sizeClass(long bytes) {
        if (bytes <= SMALLEST_CACHED_BYTES) {
            return 0;
        }
        return 64 - Long.numberOfLeadingZeros(bytes - 1) - Long.numberOfTrailingZeros(SMALLEST_CACHED_BYTES);
    }

    /**
     * {@inheritDoc}
     *
     * <p>{@link MemorySegment#NULL} is ignored. On the owning thread of an open ring, a buffer of a cached size
     * class goes back to the ring's cache while the class holds fewer than {@link #CACHED_BYTES_PER_CLASS} bytes;
     * otherwise, and on any other thread, to {@code free}.
     *
     * @throws IllegalArgumentException if the segment is not native
     */
    @Override
    public void free(MemorySegment segment) {
        Objects.requireNonNull(segment, "segment");
        if (!segment.isNative()) {
            throw new IllegalArgumentException("not memory from allocate: " + segment);
        }
        if (segment.address() == 0) {
            return;
        }
        if (segment.byteSize() <= LARGEST_CACHED_BYTES && onOwnerThread() && !closed) {
            int sizeClass = sizeClass(segment.byteSize());
            int count = cachedCount[sizeClass];
            if (count < cachedAddresses[sizeClass].length) {
                cachedAddresses[sizeClass][count] = segment.address();
                cachedCount[sizeClass] = count + 1;
                return;
            }
        }
        Libc.free(segment);
    }

    @SuppressWarnings("restricted") // addresses this ring took from calloc and nobody else holds
    private void freeCachedBuffers() {
        for (int sizeClass = 0; sizeClass < cachedCount.length; sizeClass++) {
            for (int index = 0; index < cachedCount[sizeClass]; index++) {
                Libc.free(MemorySegment.ofAddress(cachedAddresses[sizeClass][index]));
            }
            cachedCount[sizeClass] = 0;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Closes the eventfd and the ring fd (the kernel cancels the internal wake-up poll) and unmaps the
     * ring. Idempotent.
     *
     * @throws WrongThreadException off the owning thread, the first time
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        requireOwner();
        closed = true;
        try {
            // Wait out wakers already writing (a few instructions each), then refuse new ones, so the eventfd's
            // number is never written after it was closed and possibly reused.
            while (!wakersInside.compareAndSet(0, EVENTFD_CLOSED)) {
                Thread.onSpinWait();
            }
            closeQuietly(callState, eventFd);
            unregisterRingFd();
            closeQuietly(callState, ringFd);
        } finally {
            freeCachedBuffers();
            arena.close();
        }
    }

    /**
     * Whether the caller runs on the owning thread: that thread itself (its service turns), or one of its
     * worker's fibers, which run on it between service turns and never at the same time as one (the
     * engine's inline turns, {@code Worker}). The kernel sees one submitting task either way, as
     * {@code SINGLE_ISSUER} requires.
     */
    private boolean onOwnerThread() {
        return CarrierThreads.runsOn(owner);
    }

    private void requireOwner() {
        if (!onOwnerThread()) {
            throw new WrongThreadException("the " + subject + " ring belongs to " + owner + ", not "
                    + Thread.currentThread());
        }
    }

    private void requireOwnerAndOpen() {
        requireOwner();
        if (closed) {
            throw new IllegalStateException("the " + subject + " ring is closed");
        }
    }

    @Override
    public String toString() {
        return "UringRing(" + subject + ", " + entries + " entries, " + setupFlags() + ")";
    }
}
