package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Submission;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A {@link Ring} on a Linux io_uring instance, driven through FFM.
 *
 * <h2>Set-up</h2>
 * The ring is created with {@code IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN | TASKRUN_FLAG | SUBMIT_ALL | CQSIZE}
 * and a completion queue of twice the entries. A kernel that refuses that ({@code EINVAL}: older than 6.1, or a
 * sandbox that filters flags) gets, in turn, {@code SINGLE_ISSUER | DEFER_TASKRUN | SUBMIT_ALL | CQSIZE} (without
 * {@code TASKRUN_FLAG} every {@link #enter} makes its {@code io_uring_enter}, {@link EnterLoop}),
 * {@code SUBMIT_ALL | CQSIZE}, {@code CQSIZE}, and no flags; the first refusal is logged once as a warning and
 * {@link #setupFlags()} names the flags in effect. The kernel must report {@code IORING_FEAT_EXT_ARG} (Linux
 * 5.11+), which timed waits use; otherwise opening fails with {@code ENOSYS}. The rings' shared memory is mapped
 * into a shared {@link Arena} (the owner's fibers touch it too) and unmapped by {@link #close()}.
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
 * {@code GETEVENTS}; its completions still come from {@link #enter}); why, {@link RingEnter}. Other opcodes (a
 * NOP, a receive) never reach a disk and stay batched into one call per turn.
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
 * {@code IORING_REGISTER_PROBE}); on older kernels it is an {@code ftruncate} run the same offloaded way. So is
 * {@code FALLOCATE} ({@code IORING_OP_FALLOCATE}) on a kernel older than 5.6, and so are the path opcodes ({@code OPENAT}, {@code MKDIRAT}, {@code UNLINKAT}, {@code RENAMEAT}, {@code STATX}) on a
 * kernel older than 5.15: each runs its one system call on an offload thread.
 *
 * <h2>Small buffered writes</h2>
 * A {@code WRITE} of at most {@value InlineWrite#DEFAULT_MAX_BYTES} bytes (system property
 * {@value InlineWrite#MAX_BYTES_PROPERTY}; 0 turns it off) marked {@code Submission.BUFFERED_FILE} (a regular file
 * opened through the page cache) and without per-write flags takes no SQE either: {@link #stage} makes it at once with {@code pwrite} on the owning thread, instead of the io-wq
 * thread io_uring would hand it to, and keeps its completion for the next {@link #enter}, which delivers it beside the
 * offloaded calls' and the CQEs. {@link InlineWrite} says when this blocks the worker and why a fiber cannot tell.
 *
 * <h2>Errors</h2>
 * Failures of the ring itself are {@link KernelException}s naming the call and {@code io_uring fd N}.
 * Submissions the kernel cannot take ({@link Submission#validate()}: a heap buffer, a length past the buffer, a
 * negative offset; and the reserved user data) are rejected by {@link #stage} with
 * {@link IllegalArgumentException} before anything is written.
 *
 * <h2>Parts</h2>
 * This class is the {@link Ring} contract and its owner checks; the parts it drives are package-private:
 * {@link RingOpening} (acquiring the ring's resources in order, undone on failure), {@link UringSetup} (set-up
 * with its fallbacks, feature and opcode probes), {@link SubmissionQueue} and
 * {@link CompletionQueue} (the mapped queues), {@link SqeEncoder} (a submission's SQE, or its offloaded call),
 * {@link RingEnter} (the {@code io_uring_enter} calls and the ring fd's registration), {@link EnterLoop} (one
 * {@link #enter}: submit, deliver, reap, wait until a completion or a wake), {@link RingWakeUp} (the
 * eventfd and its poll), {@link RingMemory} (the mappings shared with the kernel), {@link NativeBufferCache},
 * {@link ReceiveSelection} and {@link ProvidedBuffers} (the receive buffers the kernel selects),
 * {@link PageCacheRead} ({@link #readWithoutWaiting}), {@link InlineWrite} (small buffered writes), {@link OffloadedCompletions} and {@link ProcessClock}. The
 * system calls themselves are in {@link Libc}, the offload threads in {@link Offload}.
 */
public final class UringRing implements Ring {
    /**
     * The user data of the ring's own wake-up poll: every bit set. The engine never uses it (its user data
     * never has every bit set), {@link #stage} rejects it, and its completions are never delivered.
     */
    public static final long WAKE_USER_DATA = -1L;

    private final int entries;
    private final Thread owner;
    private final Arena arena;
    private final PageCacheRead pageCacheRead;
    private final InlineWrite inlineWrite;
    private final MemorySegment callState;
    private final int ringFd;
    private final int setupFlags;
    /** The {@code IORING_FEAT_*} bits the kernel reported at set-up. */
    private final int features;
    private final String subject;

    private final SubmissionQueue submissions;
    private final SqeEncoder encoder;
    private final RingEnter enterCalls;
    private final CompletionQueue completions;
    private final RingWakeUp wakeUp;
    private final EnterLoop loop;
    private final NativeBufferCache bufferCache = new NativeBufferCache();
    /** The receive buffers the kernel selects, or none. */
    private final ReceiveSelection selection;

    /** Receive buffers a ring's kernel selects, by default: see {@link ProvidedBuffers}. */
    static final int RECEIVE_BUFFERS = 64;
    /**
     * Bytes of each: the engine's read-ahead chunk. A selecting receive asks for at most this much, so a read that
     * wants more takes several receives, where one with its own buffer could take up to the engine's largest
     * receive chunk (64 KiB) at once.
     */
    static final int RECEIVE_BUFFER_BYTES = 16 * 1024;

    /** Completions of offloaded calls, posted by offload threads ({@link #offloaded}), delivered by {@link #enter}. */
    private final OffloadedCompletions offloadedCompletions = new OffloadedCompletions();

    /**
     * The most reads and writes one {@code io_uring_enter} submits: see "Submitting reads and writes in small
     * batches" above.
     */
    static final int READ_WRITE_SUBMIT_BATCH = 4;

    private boolean closed;
    UringRing(int entries, Arena arena, MemorySegment callState, int ringFd, int eventFd,
                      MemorySegment params, ReceiveSelection selection) {
        this.entries = entries;
        this.owner = Thread.currentThread();
        this.arena = arena;
        this.pageCacheRead = new PageCacheRead(arena, callState);
        this.inlineWrite = new InlineWrite(callState, InlineWrite.configuredMaxBytes());
        this.callState = callState;
        this.ringFd = ringFd;
        this.subject = "io_uring fd " + ringFd;
        this.selection = selection;
        this.wakeUp = new RingWakeUp(eventFd, arena, callState, subject);
        this.setupFlags = params.get(JAVA_INT, UringSetup.PARAMS_FLAGS);
        int features = params.get(JAVA_INT, UringSetup.PARAMS_FEATURES);
        this.features = features;
        if ((features & UringSetup.FEATURE_EXT_ARG) == 0) {
            throw new KernelException(Errno.ENOSYS, "io_uring_setup",
                    subject + ": the kernel lacks IORING_FEAT_EXT_ARG (Linux 5.11+), needed for timed waits");
        }
        RingMemory memory = RingMemory.map(params, features, arena, callState, ringFd, subject);
        this.submissions = new SubmissionQueue(params, memory.submissionRing(), memory.entries());
        this.completions = new CompletionQueue(params, memory.completionRing());
        this.encoder = new SqeEncoder(this, submissions, arena.allocate(1));

        this.enterCalls = new RingEnter(arena, callState, ringFd, subject, submissions);
        this.loop = new EnterLoop(this, submissions, completions, enterCalls, wakeUp, offloadedCompletions,
                inlineWrite, subject, (setupFlags & UringSetup.SETUP_TASKRUN_FLAG) != 0);
    }

    /**
     * The last steps of {@link RingOpening}: registers the ring fd with the owner thread, so that enters skip the fd
     * lookup, and arms the wake-up poll.
     */
    void registerRingFdAndArmWakePoll() {
        enterCalls.registerRingFd();
        loop.armWakePollNow();
    }

    /** Undoes the ring fd's registration, if it was taken: for {@link RingOpening}'s undo on a failed opening. */
    void unregisterRingFd() {
        enterCalls.unregisterRingFd();
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
        return open(entries, RECEIVE_BUFFERS);
    }

    /**
     * Opens a ring owned by the calling thread, with {@code receiveBuffers} buffers the kernel selects for
     * receives where it can ({@link #selectedBufferBytes()}).
     *
     * @param entries the submission queue size, a power of two the caller has validated
     * @param receiveBuffers a power of two up to 32768, or 0 for none (every receive brings its own buffer)
     * @return the ring
     * @throws KernelException if the kernel refuses (named {@code io_uring_setup}, {@code mmap}, ...)
     * @throws IllegalStateException on a virtual thread, which the kernel cannot tell apart from its carrier
     */
    static UringRing open(int entries, int receiveBuffers) {
        return RingOpening.open(entries, receiveBuffers);
    }

    /**
     * Whether the ring's fd is registered with its owner thread, so that enters skip the fd lookup.
     *
     * @return true where the kernel took the registration
     */
    boolean ringFdRegistered() {
        return enterCalls.ringFdRegistered();
    }

    /**
     * What {@code io_uring_enter} is given: the registered slot, or the ring's fd.
     *
     * @return the descriptor
     */
    int enterDescriptor() {
        return enterCalls.enterDescriptor();
    }

    /**
     * How many {@code io_uring_enter} calls this ring made so far; for tests.
     *
     * @return the count
     * @throws WrongThreadException off the owning thread
     */
    long enterCallsMade() {
        requireOwner();
        return enterCalls.calls();
    }

    /**
     * Whether the last {@link #enter} saw a {@link #wake()}, rather than ending on completions or its timeout alone;
     * for tests.
     *
     * @return true if it was woken
     */
    boolean lastEnterWoken() {
        return wakeUp.woken();
    }

    /**
     * The ring's own fd, which {@code io_uring_register} takes; for tests.
     *
     * @return the fd
     */
    int ringFd() {
        return ringFd;
    }

    /** Closes an fd of this ring, if open; a failed close has released the fd anyway (Linux). */
    static void closeQuietly(MemorySegment callState, int fd) {
        if (fd >= 0) {
            Libc.invoke(callState, state -> (int) Libc.CLOSE.invokeExact(state, fd));
        }
    }

    /**
     * The {@code IORING_SETUP_*} flags this ring was created with, e.g.
     * {@code SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG|SUBMIT_ALL|CQSIZE}; fewer on kernels that refused those.
     *
     * @return the flags' names, {@code none} for none
     */
    public String setupFlags() {
        return UringSetup.describeSetupFlags(setupFlags);
    }

    /**
     * The {@code IORING_SETUP_*} bits this ring was created with, which {@link #setupFlags()} names.
     *
     * @return the bits
     */
    int setupFlagBits() {
        return setupFlags;
    }

    @Override
    public int entries() {
        return entries;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Counted by {@link #enter} each time it finds {@code IORING_SQ_CQ_OVERFLOW} set. Any thread.
     */
    @Override
    public long completionOverflows() {
        return completions.overflows();
    }

    /**
     * The {@code IORING_FEAT_*} bits the kernel reported when this ring was set up.
     *
     * @return the bits
     */
    int features() {
        return features;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Nothing reaches the kernel until the next {@link #enter}, except a small buffered write, made here
     * ({@link InlineWrite}; its completion still comes from the next {@link #enter}), and a read or write that makes
     * {@value #READ_WRITE_SUBMIT_BATCH} since the last submission: then every staged entry is submitted here
     * (see "Submitting reads and writes in small batches"). A failure of that submission is left for
     * {@link #enter}, which submits what the kernel did not take and reports a failed ring.
     *
     * @throws IllegalArgumentException what {@link Submission#validateFor(int)} refuses for this ring's selected
     *     receive buffers, or if the user data (or a cancellation's target) is {@link #WAKE_USER_DATA}
     * @throws WrongThreadException off the owning thread
     * @throws IllegalStateException after {@link #close()}
     */
    @Override
    public boolean stage(Submission submission) {
        requireOwnerAndOpen();
        Objects.requireNonNull(submission, "submission");
        submission.validateFor(selection.bufferBytes());
        long userData = submission.userData;
        if (userData == WAKE_USER_DATA) {
            throw new IllegalArgumentException("user data 0x" + Long.toHexString(userData)
                    + " is reserved for the ring's wake-up: " + submission);
        }
        if (inlineWrite.tryWrite(submission)) {
            // Made already: its completion goes out with the next enter's deliveries, never from here.
            return true;
        }
        if (submissions.freeSlots() == 0) {
            return false;
        }
        switch (encoder.encode(submission)) {
            case READ_OR_WRITE -> enterCalls.submitIfReadWriteBatchFull();
            case CANCEL -> enterCalls.submitAndRunTaskWork();
            case OTHER -> { }
        }
        return true;
    }

    /**
     * The writes made inline so far ({@link InlineWrite}): owner only, for tests.
     *
     * @return the count
     */
    long inlineWrites() {
        requireOwner();
        return inlineWrite.made();
    }

    /** Yes: {@link #readWithoutWaiting} asks the kernel's page cache. */
    @Override
    public boolean readsWithoutWaiting() {
        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>One {@code preadv2(..., RWF_NOWAIT)} on the owning thread (or a fiber of its worker, on it), which
     * {@link PageCacheRead} makes.
     *
     * @throws IllegalArgumentException if the buffer is not native, or the range does not fit it
     * @throws WrongThreadException off the owning thread
     * @throws IllegalStateException after {@link #close()}
     */
    @Override
    public int readWithoutWaiting(int fd, MemorySegment buffer, long at, int length, long offset) {
        requireOwnerAndOpen();
        Ring.checkReadWithoutWaiting(buffer, at, length, offset);
        return pageCacheRead.read(fd, buffer, at, length, offset);
    }

    /**
     * {@inheritDoc}
     *
     * <p>{@value #RECEIVE_BUFFER_BYTES} where the kernel took this ring's provided buffer ring, else 0.
     */
    @Override
    public int selectedBufferBytes() {
        return selection.bufferBytes();
    }

    /**
     * {@inheritDoc}
     *
     * @throws WrongThreadException off the owning thread
     * @throws IllegalStateException after {@link #close()}
     */
    @Override
    public MemorySegment selectedBuffer(int completionFlags) {
        requireOwnerAndOpen();
        return selection.named(completionFlags).take(completionFlags);
    }

    /**
     * {@inheritDoc}
     *
     * @throws WrongThreadException off the owning thread
     * @throws IllegalStateException after {@link #close()}
     */
    @Override
    public void returnSelected(int completionFlags) {
        requireOwnerAndOpen();
        selection.named(completionFlags).give(completionFlags);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Counted for {@link ReceiveSelection#exhaustions()}.
     */
    @Override
    public void selectionExhausted() {
        requireOwnerAndOpen();
        selection.exhausted();
    }

    /**
     * The receive buffers the kernel selects for this ring, or none: for tests and {@link RingReport}. Its counts
     * are the owner's, or anyone's once the owner's thread ended.
     *
     * @return the ring's selection
     */
    ReceiveSelection receiveSelection() {
        return selection;
    }

    /**
     * {@inheritDoc}
     *
     * <p>A turn's {@code io_uring_enter} both submits and asks for completions ({@code GETEVENTS}), which a
     * {@code DEFER_TASKRUN} ring needs before a completion made by task work becomes visible. A turn that would
     * submit nothing and not wait leaves the call out on a ring set up with {@code TASKRUN_FLAG} while the kernel
     * flags neither pending task work nor an overflow backlog: every completion the kernel has is then in the queue
     * already, and the turn reaps it without the call ({@link EnterLoop}). Entries the kernel did not consume stay
     * staged for the next call. A completion queue that overflowed into the kernel's backlog is
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
        return loop.enter(wait, timeoutNanos, sink);
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
        offloadedCompletions.post(userData, result);
        wake();
    }

    /**
     * Submits the staged entries without asking for completions or reaping any: how a test makes more
     * completions than the completion queue holds, to check that none is lost.
     *
     * @return the number of entries submitted, or {@code -errno}
     */
    int submitWithoutReaping() {
        requireOwnerAndOpen();
        return enterCalls.submitWithoutReaping();
    }

    /**
     * {@inheritDoc}
     *
     * <p>One {@code write} to the ring's eventfd per call; callers that wake often may coalesce. Does nothing
     * after {@link #close()}.
     */
    @Override
    public void wake() {
        wakeUp.wake();
    }

    /**
     * {@inheritDoc}
     *
     * <p>The process's one clock ({@link ProcessClock}), the same on every ring. Any thread.
     */
    @Override
    public long nowNanos() {
        return ProcessClock.nowNanos();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Native, zeroed, usable from any thread, independent of the ring's lifetime (free it with {@link #free} on
     * this or any ring of this kernel). Any thread.
     *
     * <p>Sizes up to {@value NativeBufferCache#LARGEST_CACHED_BYTES} bytes are rounded up to a power of two (at
     * least {@value NativeBufferCache#SMALLEST_CACHED_BYTES}) and, on the owning thread, taken from the ring's
     * {@link NativeBufferCache} of buffers freed on that thread (then zeroed with {@code fill}), so a request's
     * buffer costs no {@code calloc} and {@code free} per operation; elsewhere, and when the cache is empty, they
     * come from {@code calloc}.
     *
     * @throws IllegalArgumentException if {@code bytes} is negative
     * @throws KernelException {@code ENOMEM} naming the size if there is no memory
     */
    @Override
    public MemorySegment allocate(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative, was " + bytes);
        }
        return bufferCache.allocate(bytes, onOwnerThread() && !closed);
    }

    /**
     * {@inheritDoc}
     *
     * <p>{@link MemorySegment#NULL} is ignored. On the owning thread of an open ring, a buffer of a cached size
     * class goes back to the ring's cache while the class holds fewer than
     * {@link NativeBufferCache#CACHED_BYTES_PER_CLASS} bytes; otherwise, and on any other thread, to {@code free}.
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
        bufferCache.free(segment, onOwnerThread() && !closed);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Closes the eventfd and the ring fd (the kernel cancels the internal wake-up poll) and unmaps the
     * ring and its selected receive buffers. Idempotent.
     *
     * @throws WrongThreadException off the owning thread, the first time
     */
    @Override
    public void close() {
        close(true);
    }

    /**
     * {@inheritDoc}
     *
     * <p>As {@link #close()}, but the selected receive buffers stay mapped: a receive still in flight may have
     * one selected, which the kernel may write while its teardown runs.
     *
     * @throws WrongThreadException off the owning thread, the first time
     */
    @Override
    public void closeAbandoned() {
        close(false);
    }

    private void close(boolean drained) {
        if (closed) {
            return;
        }
        requireOwner();
        closed = true;
        RingReport.closing(this);
        try {
            wakeUp.close();
            enterCalls.unregisterRingFd();
            closeQuietly(callState, ringFd);
        } finally {
            bufferCache.freeAll();
            if (drained) {
                selection.unmap();
            }
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
