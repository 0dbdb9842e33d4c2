package dev.lockstep.engine.worker;

import dev.lockstep.engine.request.Driver;
import dev.lockstep.engine.task.FiberScheduler;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.request.WaiterId;

/**
 * The turns of its worker's ring that fibers make themselves between two service turns, instead of parking
 * ({@link #turn}), and the budget they share with work a fiber completes in place ({@link #takeInPlace}): at
 * most {@link #PER_SERVICE} before the next service turn, so a fiber whose requests keep completing at once
 * cannot keep its worker's timers, mailbox and other fibers waiting. A failure of the ring in an inline turn is
 * kept for the next service turn to throw ({@link #startService}).
 *
 * <p>Threads: the worker's own; {@link #turn} and {@link #takeInPlace} are called by its fibers, on its thread.
 */
public final class InlineTurns {
    /**
     * Inline turns left before the next service turn ({@link #turn}); reset by every service turn. Bounds
     * how long a fiber whose requests keep completing at submission can keep the thread: after this many, it
     * parks like any other, and the service turn drains the mailbox, fires timers and runs what was woken.
     */
    private int left;
    /**
     * What an inline turn's ring threw (the ring failed), rethrown by the next service turn, so that the runner
     * fails the engine and retires this worker exactly as when a service turn's own enter fails, and the fiber
     * that made the turn never sees the ring's exception in place of its result. Worker's thread only.
     */
    private RuntimeException failure;
    private Error error;
    /** Inline turns between two service turns, at most: see {@link #left}. */
    static final int PER_SERVICE = 32;
    private final Worker worker;

    InlineTurns(Worker worker) {
        this.worker = worker;
    }

    /**
     * A turn of the ring made by a fiber of this worker, in place of parking, for a request it is about to await
     * that usually completes at submission ({@link Request#completesAtSubmission}) — or, see below, one that
     * completes later: stage what is queued (every
     * fiber's, not only this one's), one {@code io_uring_enter} that submits and reaps without waiting, then the
     * deferred callbacks. If the request completed, the fiber's poll takes the result and it never parks: no
     * continuation is frozen and thawed, no service turn runs for it. Timers, the mailbox and the clock are
     * left to the next service turn, which comes after at most {@link #PER_SERVICE} inline turns.
     *
     * <p>A request that completes later (a direct read, a receive, a sync) gets the same turn, waiting, when the
     * runner lets a fiber wait in its ring ({@link FiberScheduler#fibersMayWaitInRing}: runtime-uring's) and
     * nothing else of the worker can run: no runnable fiber, no deferred callback, no message, no due timer. The
     * fiber then waits in the ring as the service turn would have, bounded by the next timer and ended by any wake.
     *
     * <p>Threads: called by the fiber itself, on this worker's thread (the runner runs a worker's fibers on its
     * thread only), so it excludes the service turns as any fiber code does; the state is borrowed and given
     * back without anything in between that can park (the enter blocks the OS thread, never parks the fiber).
     * The runner decides whether the fiber may ({@link FiberScheduler#mayTurnInline}): runtime-uring only when no
     * other fiber of the worker is runnable, so the submissions of fibers that run in one loop still go to the
     * kernel together; the simulator on the same condition, though its ring never lets a fiber wait in it.
     *
     * @param key the awaited request's user data ({@link WaiterId#userData()})
     * @return whether a turn was made
     */
    public boolean turn(long key) {
        if (worker.isBorrowed() || worker.isClosing() || left <= 0 || worker.isRetired()) {
            return false;
        }
        // Callbacks queued since the last run (the release of the request this fiber took last) are this
        // worker's to run outside the borrow anyway; run first, they may wake a fiber, which the look below sees.
        worker.runDeferredEntered();
        FiberScheduler scheduler = worker.engine().scheduler();
        if (!scheduler.mayTurnInline(worker)) {
            return false;
        }
        Driver slab = worker.borrow();
        try {
            Driver.InlineTurn turn = slab.inlineTurnFor(key);
            if (turn == Driver.InlineTurn.NONE) {
                return false;
            }
            boolean wait = turn == Driver.InlineTurn.WAIT;
            long timeoutNanos = 0;
            if (wait) {
                if (!scheduler.fibersMayWaitInRing() || worker.hasDeferredOrMail()) {
                    return false;
                }
                // Nothing else of this worker can run before the request completes: the runner said no fiber is
                // runnable, and no callback or message is waiting. Parking would only hand the thread to a service
                // turn that waits in the ring for this; the fiber waits there itself, as that turn would: until a
                // completion, the next timer, or a wake — which every party that gives this worker work sends
                // after queueing it (a fiber queued from another thread, a mailbox message, a released permit, an
                // offloaded call's completion), so one queued after the looks above still ends the wait at once.
                long now = worker.advanceClock();
                long next = slab.nextDeadline();
                if (next <= now) {
                    return false; // a timer is due: the service turn fires it
                }
                timeoutNanos = next == Long.MAX_VALUE ? Long.MAX_VALUE : next - now;
            }
            left--;
            slab.stage();
            // A full submission queue can leave requests queued: waiting now would leave them out of the kernel
            // until some completion came, and if every request in flight waits on a peer that says nothing, none
            // would. So the enter only submits, and the fiber's next await makes another turn. And the wait is for
            // the awaited request's completion: one that staging finished instead (its preparation failed: no
            // native memory for its copy) has none coming, and the wait would last until some other completion
            // or wake, for ever if there is none.
            if (wait && (slab.hasQueuedWork() || slab.inlineTurnFor(key) != Driver.InlineTurn.WAIT)) {
                wait = false;
            }
            worker.metrics().entered();
            worker.ring().enter(wait, timeoutNanos, worker.borrowedSink());
            if (wait) {
                worker.advanceClock();
            }
            // A completion that asks for another round trip (a short read) was queued again; stage it now, so
            // it goes with the next enter.
            slab.stage();
        } catch (RuntimeException thrown) {
            failure = thrown;
        } catch (Error thrown) {
            error = thrown;
        } finally {
            if (failure != null || error != null) {
                left = 0; // no more inline turns: the next service turn rethrows it
            }
            worker.unborrow();
        }
        worker.runDeferredEntered();
        return true;
    }

    /**
     * Takes one of the turns a fiber may complete in place before the next service turn, for work that finishes
     * at the call without the ring (a read the page cache answers, {@code EngineBlob}): such a fiber never parks,
     * so without this bound one that keeps reading cached bytes would keep its worker's timers, mailbox and other
     * fibers waiting for as long as it reads. It shares the budget of {@link #turn}. Worker's fibers only.
     *
     * @return true if the work may complete in place now; false once the budget is used up, until the next
     *     service turn (the caller then goes through the ring, and parks)
     */
    public boolean takeInPlace() {
        if (left <= 0 || worker.isClosing()) {
            return false;
        }
        left--;
        return true;
    }

    /**
     * A service turn begins: a failure of an inline turn since the last turn is rethrown here, so the turn fails
     * as if its own enter had, and the budget starts again. Worker's thread.
     */
    void startService() {
        RuntimeException thrownFailure = failure;
        Error thrownError = error;
        failure = null;
        error = null;
        if (thrownError != null) {
            throw thrownError;
        }
        if (thrownFailure != null) {
            throw thrownFailure;
        }
        left = PER_SERVICE;
    }

    /**
     * Whether an inline turn failed since the last service turn, which must then come (and rethrow it).
     *
     * @return true while a failure waits
     */
    boolean failed() {
        return failure != null || error != null;
    }
}
