package dev.lockstep.engine.io;

import dev.lockstep.PartitionMissingException;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.KernelException;
import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Ring;
import dev.lockstep.kernel.Statx;
import dev.lockstep.kernel.Submission;
import dev.lockstep.kernel.SystemCalls;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * A storage metadata request made of ring operations — {@link Opcode#OPENAT}, {@link Opcode#MKDIRAT},
 * {@link Opcode#UNLINKAT}, {@link Opcode#RENAMEAT}, {@link Opcode#STATX}, {@link Opcode#FSYNC} of a file or a
 * directory — submitted one
 * after the other to its worker's ring: each step's completion decides the next one ({@link #complete} returns
 * false until the last), so the worker never makes one of these calls itself, and a slow directory {@code fsync}
 * delays nothing else the worker does. The request holds its partition's {@link MetadataLane} from its first
 * step to its last, so metadata of one partition keeps its admission order across steps and workers.
 *
 * <h2>Threads</h2>
 * Everything here runs on the request's worker, inside its critical section (prepare and complete are the
 * driver's): no lock, no park, no user code. The partition's entries of {@link EngineStorage}'s not-durable set
 * are touched only while this request is its lane's head (see {@link EngineStorage}).
 *
 * <h2>Memory and fds</h2>
 * A step's path or {@code statx} buffer comes from the ring and stays the request's until the step's completion
 * arrived: it is freed at the next {@link #prepare} or at {@link #release}. After the ring failed
 * ({@link #releaseAbandoned}) the kernel may still read it, so it is left, as every ring request leaves its
 * buffers then. A directory fd a step opened to sync the directory is closed on the worker once the sync
 * completed ({@code close} of a directory has nothing to write back). A blob fd is the request's until the
 * value built from it is handed on ({@link #handOver}); on any other ending it is closed here.
 *
 * <p>Retained work: once admitted it runs to its end even if its operation is closed (a half-created blob is not
 * left for a cancellation to decide).
 */
abstract class PathChain extends Request {
    private final MetadataLane lane;
    private final String description;
    /** The application line that asked, for a kernel that names where fds come from; else null. */
    private final dev.lockstep.kernel.CallSite requestedFrom;
    protected final SystemCalls system;
    /** The current step's path or statx memory, or null. */
    private MemorySegment stepMemory;
    /** An fd this request opened and still owns, closed unless handed over; -1 for none. */
    private int ownedFd = -1;
    /** A directory fd opened to sync its directory, closed when that sync completed; -1 for none. */
    private int directoryFd = -1;

    PathChain(MetadataLane lane, String description, SystemCalls system) {
        this.lane = lane;
        this.description = description;
        this.system = system;
        // Made by the calling fiber, whose stack still has the application's line on it.
        Worker caller = Worker.current();
        this.requestedFrom = caller == null ? null : caller.engine().kernel().callerSite();
    }

    @Override
    public final Kind kind() {
        return Kind.RING;
    }

    @Override
    protected final MetadataLane lane() {
        return lane;
    }

    @Override
    public final boolean retained() {
        return true;
    }

    @Override
    public final String describe() {
        return description;
    }

    @Override
    public final void prepare(Submission submission, Ring ring) {
        freeStepMemory(ring);
        prepareStep(submission, ring);
    }

    /**
     * Fills the submission for the current step.
     *
     * @param submission cleared, with user data set
     * @param ring the ring, for memory
     */
    abstract void prepareStep(Submission submission, Ring ring);

    @Override
    public final boolean complete(int result) {
        if (RingRequest.isTransient(result)) {
            return false; // the same step again
        }
        boolean done;
        try {
            done = completeStep(result);
        } catch (KernelException failure) {
            done = fail(EngineStorage.translate(failure, description));
        }
        if (done) {
            // A failed open leaves no fd behind by the time its caller sees the failure; a succeeded one has
            // handed its fd over.
            closeOwned();
        }
        return done;
    }

    /**
     * The current step completed: moves to the next step (and returns false), or sets the outcome.
     *
     * @param result the kernel's result
     * @return true when the request is done
     * @throws KernelException for a failed step the request does not handle, translated by the caller
     */
    abstract boolean completeStep(int result);

    /** Stages an {@code openat} of {@code path}. */
    final void openAt(Submission submission, Ring ring, String path, int flags) {
        pathStep(submission, ring, Opcode.OPENAT, path);
        submission.flags = flags;
        submission.requestedFrom = requestedFrom;
    }

    /**
     * Stages an {@code openat} of the directory at {@code path} (the storage root or a partition's), to sync it or
     * to learn whether a partition exists.
     */
    final void openDirectory(Submission submission, Ring ring, String path) {
        openAt(submission, ring, path, SystemCalls.O_DIRECTORY);
    }

    /**
     * Completes an {@link #openDirectory}: its fd becomes the request's, closed by {@link #completeDirectorySync}
     * or when the request ends.
     *
     * @throws KernelException for a failed open, translated by {@link #complete}
     */
    final void completeOpenDirectory(int result, String path) {
        if (result < 0) {
            throw failed(result, "open", path);
        }
        directoryFd = result;
    }

    /** Stages an {@code fsync} of the directory the last {@link #openDirectory} opened. */
    final void syncDirectory(Submission submission) {
        fsync(submission, directoryFd);
    }

    /**
     * Completes a {@link #syncDirectory}: the fd is closed, whatever the result.
     *
     * @throws KernelException for a failed sync, translated by {@link #complete}
     */
    final void completeDirectorySync(int result, String path) {
        closeDirectory();
        if (result < 0) {
            throw failed(result, "fsync", path);
        }
    }

    /**
     * Completes an {@link #openDirectory} of a partition whose failure means the partition is missing:
     * {@code ENOENT}, or {@code ENOTDIR} where something else stands at its path, fails the request with
     * {@link PartitionMissingException}; otherwise as {@link #completeOpenDirectory}.
     *
     * @param partition the partition's name, for the message
     * @return true when the request failed (it is done); false when the directory is open
     * @throws KernelException for any other failed open, translated by {@link #complete}
     */
    final boolean completeOpenPartition(int result, String partition, String partitionPath) {
        if (result == -Errno.ENOENT || result == -Errno.ENOTDIR) {
            return fail(new PartitionMissingException("partition '" + partition + "' does not exist"));
        }
        completeOpenDirectory(result, partitionPath);
        return false;
    }

    /** Stages a {@code mkdirat} of {@code path}. */
    final void mkdirAt(Submission submission, Ring ring, String path) {
        pathStep(submission, ring, Opcode.MKDIRAT, path);
    }

    /** Stages an {@code unlinkat} of {@code path}. */
    final void unlinkAt(Submission submission, Ring ring, String path, int flags) {
        pathStep(submission, ring, Opcode.UNLINKAT, path);
        submission.flags = flags;
    }

    /** Stages a {@code renameat} of {@code from} to {@code to}: both paths in one buffer (see {@link Opcode#RENAMEAT}). */
    final void renameAt(Submission submission, Ring ring, String from, String to) {
        byte[] fromBytes = from.getBytes(StandardCharsets.UTF_8);
        byte[] toBytes = to.getBytes(StandardCharsets.UTF_8);
        stepMemory = ring.allocate(fromBytes.length + toBytes.length + 2L); // zeroed: both NULs are there
        MemorySegment.copy(fromBytes, 0, stepMemory, ValueLayout.JAVA_BYTE, 0, fromBytes.length);
        MemorySegment.copy(toBytes, 0, stepMemory, ValueLayout.JAVA_BYTE, fromBytes.length + 1L, toBytes.length);
        submission.opcode = Opcode.RENAMEAT;
        submission.fd = Submission.AT_FDCWD;
        submission.buffer = stepMemory;
        submission.length = fromBytes.length;
        submission.offset = fromBytes.length + 1L;
    }

    /** Stages a {@code statx} of the owned fd asking for {@code mask}. */
    final void statx(Submission submission, Ring ring, int mask) {
        stepMemory = ring.allocate(Statx.BYTES);
        submission.opcode = Opcode.STATX;
        submission.fd = ownedFd;
        submission.buffer = stepMemory;
        submission.length = Statx.BYTES;
        submission.flags = mask;
    }

    /** The completed {@code statx}'s answer at {@code offset}: a u64 field. */
    final long statxLong(long offset) {
        return stepMemory.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
    }

    /** The completed {@code statx}'s answer at {@code offset}: a u16 field. */
    final short statxShort(long offset) {
        return stepMemory.get(ValueLayout.JAVA_SHORT_UNALIGNED, offset);
    }

    /** The completed {@code statx}'s answer at {@code offset}: a u32 field. */
    final int statxInt(long offset) {
        return stepMemory.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
    }

    /** Stages an {@code fsync} of {@code fd}. */
    static void fsync(Submission submission, int fd) {
        submission.opcode = Opcode.FSYNC;
        submission.fd = fd;
    }

    private void pathStep(Submission submission, Ring ring, Opcode opcode, String path) {
        byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        stepMemory = ring.allocate(bytes.length + 1L); // zeroed: the last byte is the NUL
        MemorySegment.copy(bytes, 0, stepMemory, ValueLayout.JAVA_BYTE, 0, bytes.length);
        submission.opcode = opcode;
        submission.fd = Submission.AT_FDCWD;
        submission.buffer = stepMemory;
        submission.length = bytes.length;
    }

    /** Takes ownership of an fd a step opened. */
    final void own(int fd) {
        ownedFd = fd;
    }

    final int ownedFd() {
        return ownedFd;
    }

    /** The owned fd goes with the value being returned: the request no longer closes it. */
    final int handOver() {
        int fd = ownedFd;
        ownedFd = -1;
        return fd;
    }

    /** The directory's sync completed, or the request ended: its fd is closed. */
    private void closeDirectory() {
        int fd = directoryFd;
        directoryFd = -1;
        if (fd >= 0) {
            system.close(fd);
        }
    }

    /** A failed step, as the typed failure of this request. */
    static KernelException failed(int result, String call, String subject) {
        return new KernelException(-result, call, subject);
    }

    private void freeStepMemory(Ring ring) {
        MemorySegment memory = stepMemory;
        stepMemory = null;
        if (memory != null) {
            ring.free(memory);
        }
    }

    private void closeOwned() {
        if (ownedFd >= 0) {
            int fd = ownedFd;
            ownedFd = -1;
            system.close(fd);
        }
        closeDirectory();
    }

    @Override
    public final void release(Ring ring) {
        freeStepMemory(ring);
        closeOwned();
    }

    @Override
    public final void releaseAbandoned(Ring ring) {
        // The kernel may still read the step's memory: it is left. The fds are the process's, not the ring's.
        stepMemory = null;
        closeOwned();
    }
}
