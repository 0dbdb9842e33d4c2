package dev.lockstep.sim.os;

import dev.lockstep.kernel.Opcode;
import dev.lockstep.kernel.Submission;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A submission copied at {@link SimRing#stage}, and its state in the simulated kernel: what it asked, what its
 * descriptor named, when it may complete, its result once decided, and where it waits. Owned by its ring; the
 * simulator's thread only.
 */
final class SimRequest implements SimSocket.Waiter {
    final SimRing ring;
    final long sequence;
    final Opcode opcode;
    final int fd;
    final MemorySegment buffer;
    final int length;
    final long offset;
    final int rwFlags;
    final int flags;
    final long userData;
    final long target;
    /** The bytes of a {@link Opcode#FALLOCATE}'s range ({@link Submission#rangeLength}). */
    final long rangeLength;
    /** The body of a {@link Opcode#BLOCKING_CALL}, or null. */
    final dev.lockstep.kernel.BlockingCall call;
    /** The application line that asked for a path request ({@link Submission#requestedFrom}), or null. */
    final dev.lockstep.kernel.CallSite requestedFrom;
    /** What the fd named at submission; null if nothing (then the request fails EBADF). */
    Description description;
    long submittedAtNanos;
    /** Submission time plus the drawn latency: the earliest the request can complete. */
    long earliestNanos;
    /** A result decided before delivery (connect, cancel, cancelled, bad fd), or STILL_PENDING. */
    int decidedResult = SimRing.STILL_PENDING;
    long decidedAtNanos;
    boolean cancelled;
    /** Its index in {@code InFlightQueue.dueHeap} or {@code InFlightQueue.waitingForNetwork}, or -1 if it is in neither. */
    int heapIndex = -1;
    /** Its time in its heap: {@code InFlightQueue.readyAtNanos} when it went there, or when last worked out again. */
    long heapNanos;
    /** Whether it is in {@code InFlightQueue.waitingForNetwork} (and one of its socket's waiters) rather than the other. */
    boolean waitingForNetwork;
    /** Whether it is on {@code InFlightQueue.staleWaits}, its socket having changed since its time was worked out. */
    boolean stale;
    /**
     * Set by {@code SimRing.perform}: null, or an array nobody changes holding exactly the bytes the request moved (the
     * shared page a read copied, the data a write left to the file system), for the completion's audit.
     */
    byte[] movedUnchanging;
    /**
     * The ring's receive buffer a {@link Submission#SELECT_BUFFER} receive was performed into
     * ({@link SimProvidedBuffers}), or -1.
     */
    int selectedBuffer = -1;

    SimRequest(SimRing ring, long sequence, Submission submission) {
        this.ring = ring;
        this.sequence = sequence;
        this.opcode = Objects.requireNonNull(submission.opcode, "submission.opcode");
        this.fd = submission.fd;
        this.buffer = submission.buffer == null ? MemorySegment.NULL : submission.buffer;
        this.length = submission.length;
        this.offset = submission.offset;
        this.rwFlags = submission.rwFlags;
        this.flags = submission.flags;
        this.userData = submission.userData;
        this.target = submission.target;
        this.rangeLength = submission.rangeLength;
        this.call = submission.call;
        this.requestedFrom = submission.requestedFrom;
    }

    boolean isPath() {
        return opcode == Opcode.OPENAT || opcode == Opcode.MKDIRAT || opcode == Opcode.UNLINKAT
                || opcode == Opcode.RENAMEAT;
    }

    /** Runs to its end when submitted: it cannot lose to a cancel (see the class doc). */
    boolean decidedAtSubmission() {
        return opcode == Opcode.BLOCKING_CALL || isPath();
    }

    void decide(int result, long atNanos) {
        decidedResult = result;
        decidedAtNanos = atNanos;
    }

    boolean isCancel() {
        return opcode == Opcode.ASYNC_CANCEL;
    }

    /** Whether the engine bounds this request by the ring's entries: everything but a wait on a peer or a cancel. */
    boolean isStorage() {
        return switch (opcode) {
            case RECV, ACCEPT, SEND, CONNECT, ASYNC_CANCEL -> false;
            default -> true;
        };
    }

    /** Whether it waits for the device to make data durable: an {@code fsync} or an {@code RWF_DSYNC} write. */
    boolean isSync() {
        return opcode == Opcode.FSYNC || (opcode == Opcode.WRITE && (rwFlags & Submission.RWF_DSYNC) != 0);
    }

    /** The socket a receive, send or accept waits for; only for a request in {@code InFlightQueue.waitingForNetwork}. */
    SimSocket socket() {
        return ((SocketDescription) description).socket;
    }

    @Override
    public void readinessChanged() {
        if (!stale) {
            stale = true;
            ring.inFlightQueue().staleWaits().add(this);
        }
    }
}
