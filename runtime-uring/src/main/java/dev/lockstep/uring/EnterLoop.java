package dev.lockstep.uring;

import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.KernelException;

/**
 * The loop of one {@link UringRing#enter}: re-arm the wake-up poll where it ended, deliver the offloaded calls'
 * completions and those of the small writes made when staged ({@link InlineWrite}), one {@code io_uring_enter} that
 * submits and may wait, reap what is visible (flushing the kernel's overflow backlog), and decide from the result,
 * the deliveries and a {@link UringRing#wake()} whether to go round again. The ring's contract and its owner checks
 * stay in {@link UringRing}; this class is how a turn is made.
 *
 * <p>The {@code io_uring_enter} of a turn is left out when it would do nothing: on a ring set up with
 * {@code IORING_SETUP_TASKRUN_FLAG}, a turn that does not wait, with every staged entry consumed by the kernel and
 * neither {@code IORING_SQ_TASKRUN} (task work pending) nor {@code IORING_SQ_CQ_OVERFLOW} (a backlog) set, only
 * reaps the completion queue; why no completion or wake is lost, at the decision in {@link #enter}. Every other
 * turn, and every turn of a ring without that flag, makes the call.
 *
 * <p>Threads: the ring's owner thread only (or a fiber of its worker, on it), as {@link UringRing#enter}.
 */
final class EnterLoop {
    private final UringRing ring;
    private final SubmissionQueue submissions;
    private final CompletionQueue completions;
    private final RingEnter enterCalls;
    private final RingWakeUp wakeUp;
    private final OffloadedCompletions offloaded;
    private final InlineWrite inlineWrites;
    private final String subject;
    /**
     * Whether the kernel flags pending task work in the SQ ring ({@code IORING_SETUP_TASKRUN_FLAG}): only then can
     * an enter that would submit nothing and not wait be left out ({@link #enter}).
     */
    private final boolean taskWorkFlagged;

    EnterLoop(UringRing ring, SubmissionQueue submissions, CompletionQueue completions, RingEnter enterCalls,
              RingWakeUp wakeUp, OffloadedCompletions offloaded, InlineWrite inlineWrites, String subject,
              boolean taskWorkFlagged) {
        this.taskWorkFlagged = taskWorkFlagged;
        this.ring = ring;
        this.submissions = submissions;
        this.completions = completions;
        this.enterCalls = enterCalls;
        this.wakeUp = wakeUp;
        this.offloaded = offloaded;
        this.inlineWrites = inlineWrites;
        this.subject = subject;
    }

    /** Arms the wake-up before the ring is handed out, so that no user entry ever has to make room for it. */
    void armWakePollNow() {
        wakeUp.stagePoll(submissions);
        int result;
        do {
            result = enterCalls.enterOnce(false, Long.MAX_VALUE);
        } while (result == -Libc.EINTR || result == -Libc.EAGAIN || result == -Libc.EBUSY);
        Libc.check(result, "io_uring_enter", subject);
    }

    /**
     * Submits, reaps and optionally waits, as {@link UringRing#enter} documents.
     *
     * @param wait whether to wait for a completion or a wake-up
     * @param timeoutNanos the longest wait, {@link Long#MAX_VALUE} for none
     * @param sink where completions go
     * @return the number of completions delivered
     * @throws KernelException naming {@code io_uring_enter} if the kernel fails the ring
     */
    int enter(boolean wait, long timeoutNanos, CompletionSink sink) {
        boolean timed = wait && timeoutNanos != Long.MAX_VALUE;
        long start = timed ? System.nanoTime() : 0;
        int delivered = 0;
        wakeUp.clearWoken();
        while (true) {
            wakeUp.armIfNeeded(submissions);
            delivered += offloaded.deliver(sink);
            // The small writes made when staged since the last enter: delivered first, so this turn does not wait.
            delivered += inlineWrites.deliver(sink);
            // Without an armed wake-up poll a wait could miss a wake, so this turn only submits and re-arms.
            // A blocking call that finishes after the drain above wakes the ring, so this wait returns for it.
            boolean waitNow = wait && delivered == 0 && !wakeUp.woken() && !wakeUp.needsArming();
            long remaining = timed ? Math.max(0, timeoutNanos - (System.nanoTime() - start)) : Long.MAX_VALUE;
            int result = 0;
            // An enter that would submit nothing and not wait does only what the kernel flags: with DEFER_TASKRUN
            // a completion is posted by task work that runs when this thread enters, and the kernel sets
            // IORING_SQ_TASKRUN (under TASKRUN_FLAG) when it queues such work, before it would wake a waiter;
            // a backlog sets IORING_SQ_CQ_OVERFLOW. With both clear, every completion the kernel has is in the
            // queue already, and reap below takes it without the call. Work queued after the look is no later
            // than if it came after the enter: its flag makes the next enter, and a waiting enter runs pending
            // task work before it sleeps, so no wake is lost. Left out only when not waiting: then this turn
            // returns below (or, waiting with something delivered or woken, returns too), so it never spins.
            boolean nothingToDo = taskWorkFlagged && !waitNow && submissions.allSubmitted()
                    && !submissions.kernelAsksForEnter();
            if (!nothingToDo) {
                result = enterCalls.enterOnce(waitNow, remaining);
            }
            delivered += reap(sink);
            delivered += offloaded.deliver(sink);
            delivered += inlineWrites.deliver(sink);
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
            if (!wait || delivered > 0 || wakeUp.woken()) {
                return delivered;
            }
            if (timed && System.nanoTime() - start >= timeoutNanos) {
                return delivered;
            }
        }
    }

    /** Delivers every visible completion, flushing the kernel's overflow backlog into the queue first. */
    private int reap(CompletionSink sink) {
        int delivered = completions.reapVisible(sink, wakeUp);
        if (submissions.completionsOverflowed()) {
            completions.countOverflow();
            RingReport.overflowed(ring);
        }
        while (submissions.completionsOverflowed()) {
            enterCalls.flushOverflow();
            delivered += completions.reapVisible(sink, wakeUp);
        }
        return delivered;
    }
}
