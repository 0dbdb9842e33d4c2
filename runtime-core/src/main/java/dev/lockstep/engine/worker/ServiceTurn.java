package dev.lockstep.engine.worker;

import dev.lockstep.engine.request.Driver;
import dev.lockstep.engine.EngineHooks;

/**
 * A worker's service turn, on the thread that carries it: drain the mailbox, fire due timers, stage queued work,
 * one {@code enter} of the ring that submits, may wait and reaps, then the deferred callbacks. {@link #service}
 * makes a whole turn; {@link #serviceHalf} one of its two halves, for a scheduler that runs other workers between
 * them (the simulator).
 *
 * <p>Threads: the worker's own, with the worker entered by the turn itself; {@link #markRunnable} by whatever
 * runs inside the turn on that thread.
 */
final class ServiceTurn {
    /**
     * A fiber became runnable during this worker's own service turn: the turn must not block. Cleared when a turn
     * starts: a wake in an earlier turn was seen by the fiber loop, which ran the fiber before this turn (or, with
     * fibers still queued, asked for a turn that does not wait), so it must not stop this turn from waiting. Left
     * set, it made the turn after every wake submit without waiting, and a request that completes later than its
     * submission (a direct read, a large buffered write that io_uring hands to its io-wq threads) cost a second {@code io_uring_enter} to wait.
     */
    private boolean runnable;
    private final Worker worker;

    ServiceTurn(Worker worker) {
        this.worker = worker;
    }

    /** A fiber became runnable during this turn: it will not block in the ring. */
    void markRunnable() {
        runnable = true;
    }

    /**
     * One service turn: drain the mailbox, fire due timers, stage queued work, one {@code enter} that submits,
     * optionally waits, and reaps; then run the deferred callbacks.
     *
     * @param mayWait whether the turn may block waiting for a completion, a wake-up or the next timer
     * @param maxWaitNanos the longest wait
     * @return the number of completions reaped
     */
    int service(boolean mayWait, long maxWaitNanos) {
        if (worker.isStranded()) {
            // Already reported (checkUnmounted failed the runtime): the state is the stranded fiber's until it
            // resumes on this carrier, which only the runner's fiber loop can do. Leave the turn to it.
            Thread.yield();
            return 0;
        }
        Worker previous = Worker.enter(worker);
        try {
            runnable = false;
            worker.inlineTurns().startService();
            if (half(true, false, 0) < 0) {
                return 0;
            }
            boolean waitNow = mayWait && !runnable && !worker.hasDeferredOrMail() && !worker.hasQueuedWork();
            long nextDeadline = worker.nextDeadline();
            long untilTimer = nextDeadline == Long.MAX_VALUE ? Long.MAX_VALUE
                    : Math.max(0, nextDeadline - worker.nowNanos());
            return Math.max(0, half(false, waitNow, Math.min(maxWaitNanos, untilTimer)));
        } finally {
            Worker.enter(previous);
        }
    }

    /** {@link EngineHooks#serviceHalf}: see there. */
    int serviceHalf(int half) {
        if (half != 0 && half != 1) {
            throw new IllegalArgumentException("service half must be 0 or 1, was " + half);
        }
        if (worker.isStranded()) {
            return 0; // as in service(): the state is the stranded fiber's until it resumes
        }
        Worker previous = Worker.enter(worker);
        try {
            if (half == 0) {
                // As service() begins: a failure of an inline turn since the last turn is this turn's to throw,
                // and the inline turns' budget starts again.
                worker.inlineTurns().startService();
            }
            return Math.max(0, half(half == 0, false, 0));
        } finally {
            Worker.enter(previous);
        }
    }

    /** {@link EngineHooks#serviceTurnFromHalfOne}: see there. */
    int serviceTurnFromHalfOne(long ringNanosAtHalfZero) {
        if (worker.isStranded()) {
            return 0; // as in service(): the state is the stranded fiber's until it resumes
        }
        Worker previous = Worker.enter(worker);
        try {
            // What half 0 does when it has nothing else to do.
            worker.inlineTurns().startService();
            worker.advanceClockTo(ringNanosAtHalfZero);
            return Math.max(0, half(false, false, 0));
        } finally {
            Worker.enter(previous);
        }
    }

    /**
     * One half of a service turn, on the worker's thread with the worker entered: the first drains the mailbox,
     * fires due timers, stages queued work and runs the deferred callbacks; the second makes one {@code enter}
     * (waiting up to {@code timeoutNanos} if {@code wait}), fires timers, stages again and runs the deferred
     * callbacks. {@link #service} runs both with its wait decided between them; {@link #serviceHalf} runs one.
     *
     * @return the completions reaped (0 in the first half), or -1 if the worker is retired
     */
    private int half(boolean first, boolean wait, long timeoutNanos) {
        if (first) {
            worker.advanceClock();
            drainMailbox();
        }
        int reaped = 0;
        Driver slab = worker.borrow();
        try {
            if (slab == null) {
                return -1;
            }
            if (!first) {
                worker.metrics().entered();
                reaped = worker.ring().enter(wait && timeoutNanos > 0, timeoutNanos, worker.borrowedSink());
                worker.advanceClock();
            }
            slab.fireTimers(worker.nowNanos());
            slab.stage();
        } finally {
            worker.unborrow();
        }
        worker.runDeferredEntered();
        return reaped;
    }

    /**
     * The owner's side of the mailbox: answers each forwarded poll and cancellation other threads sent, in the
     * order they were sent. On the worker's thread with the worker entered, outside the critical section.
     */
    void drainMailbox() {
        Mailbox.Message message;
        while ((message = worker.mailbox().poll()) != null) {
            switch (message) {
                case Mailbox.Forward forward -> {
                    Driver slab = worker.borrow();
                    try {
                        if (slab == null) {
                            worker.defer(forward.channel()::closeSender);
                        } else if (worker.isClosing() && slab.isLive(forward.id())) {
                            Object ignored = slab.take(forward.id());
                            if (ignored != null) {
                                @SuppressWarnings("unchecked")
                                dev.lockstep.Poll<Object> result = (dev.lockstep.Poll<Object>) ignored;
                                worker.defer(() -> forward.channel().send(result));
                            } else {
                                slab.close(forward.id(), null, true);
                                worker.defer(forward.channel()::closeSender);
                            }
                        } else {
                            slab.forward(forward.id(), forward.channel());
                        }
                    } finally {
                        worker.unborrow();
                    }
                }
                case Mailbox.Cancel cancel -> {
                    Driver slab = worker.borrow();
                    try {
                        if (slab != null) {
                            slab.close(cancel.id());
                        }
                    } finally {
                        worker.unborrow();
                    }
                }
            }
        }
    }
}
