package dev.lockstep.uring;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.lockstep.kernel.KernelException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How other threads wake a ring: an eventfd that the ring itself polls ({@code IORING_OP_POLL_ADD}, multishot
 * where the kernel has it) under the reserved user data {@link UringRing#WAKE_USER_DATA}. {@link #wake()} writes
 * to the eventfd, which is the only thing another thread may do to a single-issuer ring; a wake with nobody
 * waiting leaves the eventfd readable, so the next enter returns promptly. The poll's completions come back
 * through {@link #onPollCompletion}, which drains the eventfd and notes that the enter was woken.
 *
 * <p>Threads: {@link #wake()} any thread, also after {@link #close()} (then it does nothing); everything else the
 * ring's owner thread.
 */
final class RingWakeUp {
    private static final byte OP_POLL_ADD = 6;
    private static final int POLL_ADD_MULTI = 1;
    private static final int POLLIN = 1;
    private static final int CQE_FLAG_MORE = 2;
    /** What {@link #wake()} writes to the eventfd; global because wakes come from any thread. */
    private static final MemorySegment EVENTFD_INCREMENT = Arena.global().allocateFrom(JAVA_LONG, 1L);
    private static final int EVENTFD_CLOSED = -1;

    private final int eventFd;
    private final MemorySegment callState;
    private final MemorySegment eventFdDrain;
    private final String subject;
    /**
     * Wakers inside {@link #wake()} right now, or {@link #EVENTFD_CLOSED} once {@link #close()} closed the eventfd.
     * A counter rather than a monitor: {@code wake()} is called from fibers, and a virtual thread that contends a
     * monitor unmounts and waits to be rescheduled by the very worker that may be closing this ring.
     */
    private final AtomicInteger wakersInside = new AtomicInteger();
    private boolean multishot = true;
    private boolean needsArming;
    private boolean woken;

    /**
     * @param eventFd a non-blocking eventfd this object now owns
     * @param arena the ring's memory, for the drain buffer
     * @param callState where {@code errno} is captured
     * @param subject the ring, for messages
     */
    RingWakeUp(int eventFd, Arena arena, MemorySegment callState, String subject) {
        this.eventFd = eventFd;
        this.callState = callState;
        this.eventFdDrain = arena.allocate(JAVA_LONG);
        this.subject = subject;
    }

    /**
     * Writes the poll's SQE; the caller has checked there is room.
     *
     * @param queue the ring's submission queue
     */
    void stagePoll(SubmissionQueue queue) {
        queue.write(OP_POLL_ADD, eventFd, 0, 0, multishot ? POLL_ADD_MULTI : 0, POLLIN, UringRing.WAKE_USER_DATA);
    }

    /**
     * Re-arms the poll if its last completion ended it and the queue has room.
     *
     * @param queue the ring's submission queue
     */
    void armIfNeeded(SubmissionQueue queue) {
        if (needsArming && queue.freeSlots() > 0) {
            stagePoll(queue);
            needsArming = false;
        }
    }

    /**
     * Whether the poll is disarmed: a wait now could miss a wake.
     *
     * @return true until {@link #armIfNeeded} staged it again
     */
    boolean needsArming() {
        return needsArming;
    }

    /** Starts an enter: no wake seen yet. */
    void clearWoken() {
        woken = false;
    }

    /**
     * Whether a poll completion came since {@link #clearWoken()}: a {@link #wake()} ended or would end the wait.
     *
     * @return true once woken
     */
    boolean woken() {
        return woken;
    }

    /**
     * A completion of the poll: drains the eventfd, and notes whether the poll must be armed again (a one-shot
     * poll, or a multishot one the kernel ended). Kernels before 5.13 refuse multishot polls; then every later
     * poll is one-shot, re-armed after each wake. They refuse it with {@code EINVAL}, and only that failure of a
     * multishot poll leads to the downgrade: any other means the wake-up itself is broken.
     *
     * @param result the CQE's result
     * @param flags the CQE's flags
     * @throws KernelException naming the errno, the eventfd and the ring if the poll failed (other than a multishot
     *     poll refused with {@code EINVAL}) or the drain failed
     */
    void onPollCompletion(int result, int flags) {
        woken = true;
        if (result < 0) {
            if (!multishot || result != -Libc.EINVAL) {
                throw new KernelException(-result, multishot ? "poll_add (multishot)" : "poll_add",
                        "eventfd " + eventFd + " of " + subject);
            }
            multishot = false;
            needsArming = true;
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
            needsArming = true;
        }
    }

    /** One {@code write} to the eventfd; nothing after {@link #close()}. Any thread. */
    void wake() {
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
     * Closes the eventfd: waits out wakers already writing (a few instructions each), then refuses new ones, so
     * the eventfd's number is never written after it was closed and possibly reused. Owner thread, once.
     */
    void close() {
        while (!wakersInside.compareAndSet(0, EVENTFD_CLOSED)) {
            Thread.onSpinWait();
        }
        UringRing.closeQuietly(callState, eventFd);
    }
}
