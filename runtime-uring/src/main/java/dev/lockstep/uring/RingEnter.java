package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.lockstep.kernel.KernelException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A ring's {@code io_uring_enter} calls: which descriptor they name (the ring's slot among its owner thread's
 * registered rings where the kernel takes the registration), the enter that submits and waits with a timeout,
 * and the submit-only calls of {@link UringRing#stage} (a full batch of reads and writes, a cancellation with its
 * task work). Every call first publishes what is staged in the {@link SubmissionQueue}.
 *
 * <p>Reads and writes are submitted in small batches ({@link #submitIfReadWriteBatchFull}): a turn that stages 30
 * direct reads hands them to the block layer {@value UringRing#READ_WRITE_SUBMIT_BATCH} at a time rather than all
 * at once. Measured on a virtio disk at queue depth 32, reads submitted in one call completed about together, so
 * each waited for its whole batch; batches of at most 4 instead of about 8 cut the median read (BENCHMARKS.md,
 * "O_DIRECT at depth 32: reads submitted 4 at a time"), and cost warm page-cache reads no CPU per read that those
 * rounds could tell apart.
 *
 * <p>Threads: the ring's owner thread only (or a fiber of its worker, on it): the registration belongs to that
 * kernel task.
 */
final class RingEnter {
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

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final Arena arena;
    private final MemorySegment callState;
    private final int ringFd;
    private final String subject;
    private final SubmissionQueue submissions;
    private final MemorySegment geteventsArgument;
    private final MemorySegment timeout;
    /** Reads and writes staged since the entries were last submitted. */
    private int readsWritesUnsubmitted;
    /**
     * The descriptor every {@code io_uring_enter} names: the ring's slot among the owner thread's registered
     * rings ({@link #registerRingFd}), or the ring's fd where the kernel refused to register it.
     */
    private int enterFd;
    /** {@code ENTER_REGISTERED_RING} when {@link #enterFd} is a registered slot, else 0. */
    private int enterFdFlag;
    /** Every {@code io_uring_enter} made through this object ({@link #calls()}). */
    private long calls;

    /**
     * @param arena the ring's memory
     * @param callState where {@code errno} is captured
     * @param ringFd the ring's fd
     * @param subject the ring, for messages
     * @param submissions the ring's submission queue
     */
    RingEnter(Arena arena, MemorySegment callState, int ringFd, String subject, SubmissionQueue submissions) {
        this.arena = arena;
        this.callState = callState;
        this.ringFd = ringFd;
        this.enterFd = ringFd;
        this.subject = subject;
        this.submissions = submissions;
        this.timeout = arena.allocate(TIMESPEC_BYTES, 8);
        this.geteventsArgument = arena.allocate(GETEVENTS_ARG_BYTES, 8);
        geteventsArgument.set(JAVA_LONG, 16, timeout.address());
    }

    /**
     * Registers the ring's fd with the owner thread ({@code IORING_REGISTER_RING_FDS}, Linux 5.18+), so every
     * {@code io_uring_enter} names the registered slot with {@code IORING_ENTER_REGISTERED_RING} and the kernel
     * skips looking the fd up and taking and dropping a reference to its file on every call ({@code fget} and
     * {@code fput}, a visible part of a NOP round trip's profile; measured in docs/archive/benchmarks-history.md,
     * "Buffer calls that wait themselves, and the ring's fd registered"). The registration belongs
     * to the calling kernel task, which is why only the owner may enter: its fibers run on it, so they share it.
     * A kernel that refuses keeps the plain fd; nothing else changes. The registration holds a reference to the
     * ring's file, so {@link UringRing#close()} unregisters before it closes the fd.
     */
    void registerRingFd() {
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
    void unregisterRingFd() {
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
     * How many {@code io_uring_enter} calls this ring made (a call repeated to capture {@code errno} counts twice):
     * for tests, which check that {@link EnterLoop} leaves out the enters it may and makes the others.
     *
     * @return the count
     */
    long calls() {
        return calls;
    }

    /**
     * Submits every staged entry once {@value UringRing#READ_WRITE_SUBMIT_BATCH} reads and writes are staged. No
     * {@code GETEVENTS}: completions are {@link UringRing#enter}'s to deliver. Any result is fine here: entries the
     * kernel did not consume ({@code EAGAIN}, {@code EBUSY}, {@code EINTR}) stay published and the next
     * {@link #enterOnce} counts them again from the kernel's head; a failed ring fails that call too. So no
     * {@code errno} is captured ({@link Libc#syscallUncaptured}): nobody reads it, and a captured call would make
     * a call-state slice that only escape analysis removes (see {@link PageCacheRead}) once every
     * {@value UringRing#READ_WRITE_SUBMIT_BATCH} reads or writes.
     */
    void submitIfReadWriteBatchFull() {
        if (++readsWritesUnsubmitted < UringRing.READ_WRITE_SUBMIT_BATCH) {
            return;
        }
        readsWritesUnsubmitted = 0;
        int toSubmit = submissions.publish();
        calls++;
        Libc.syscallUncaptured(Libc.SYS_IO_URING_ENTER, enterFd, toSubmit, 0, enterFdFlag, 0, 0);
    }

    /**
     * Submits every staged entry, a cancellation last, and runs the ring's deferred task work before anything is staged
     * after it. Why: with {@code DEFER_TASKRUN} the kernel takes a cancelled request off what it waits on only in task
     * work, which runs when this thread next asks for completions. A cancelled accept waiting on its listener stays
     * there until then, first in the listener's queue of exclusive waiters, and takes the wake-up of the next
     * connection for nobody: an accept staged after the cancellation (on the same listener, in the same {@code
     * io_uring_enter}) is never woken for that connection, which waits until another one arrives. Running the task work
     * here takes the cancelled accept off first. {@code GETEVENTS} with no minimum runs the task work and waits for
     * nothing; the completions stay for {@link UringRing#enter} to deliver. A cancellation is rare (a close or a
     * timeout of a request in flight), so the extra system call is too. Any result is fine, as in {@link
     * #submitIfReadWriteBatchFull}: entries not consumed stay published for the next enter.
     */
    void submitAndRunTaskWork() {
        readsWritesUnsubmitted = 0;
        int toSubmit = submissions.publish();
        calls++;
        Libc.syscallUncaptured(Libc.SYS_IO_URING_ENTER, enterFd, toSubmit, 0, ENTER_GETEVENTS | enterFdFlag, 0, 0);
    }

    /** One {@code io_uring_enter} that publishes and submits every staged entry; a result or {@code -errno}. */
    int enterOnce(boolean waitForOne, long timeoutNanos) {
        readsWritesUnsubmitted = 0;
        int toSubmit = submissions.publish();
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
            calls++;
            long result = Libc.syscallUncaptured(Libc.SYS_IO_URING_ENTER, enterFd, toSubmit, minComplete, flags, 0, 0);
            if (result != -1) {
                return (int) result;
            }
        }
        calls++;
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
        readsWritesUnsubmitted = 0;
        int toSubmit = submissions.publish();
        calls++;
        return (int) Libc.syscall(callState, Libc.SYS_IO_URING_ENTER, enterFd, toSubmit, 0, enterFdFlag, 0, 0);
    }

    /**
     * Flushes the kernel's overflow backlog into the completion queue ({@code GETEVENTS}, waiting for nothing).
     *
     * @throws KernelException naming {@code io_uring_enter} if the kernel fails the ring
     */
    void flushOverflow() {
        calls++;
        int result = (int) Libc.syscall(callState, Libc.SYS_IO_URING_ENTER, enterFd, 0, 0,
                ENTER_GETEVENTS | enterFdFlag, 0, 0);
        if (result < 0 && result != -Libc.EINTR && result != -Libc.EAGAIN && result != -Libc.EBUSY) {
            throw new KernelException(-result, "io_uring_enter", subject);
        }
    }
}
