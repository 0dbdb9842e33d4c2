package dev.lockstep.engine.task;

import dev.lockstep.engine.worker.InlineTurns;
import dev.lockstep.engine.worker.Worker;

/**
 * Decides when fibers run: the seam between the shared engine and a runtime's loop. runtime-uring runs each
 * worker's fibers on that worker's thread, in arrival order per source (wakes from the worker's own thread, and
 * wakes from other threads); the simulator picks the next one with its seed.
 */
public interface FiberScheduler {
    /**
     * A continuation of a fiber whose home is {@code worker} became runnable. Called from whichever thread
     * unparked it; the scheduler must run it on a thread that carries {@code worker}.
     *
     * @param worker the fiber's home
     * @param fiber the fiber the continuation belongs to
     * @param continuation what to run
     */
    void schedule(Worker worker, Fiber fiber, Runnable continuation);

    /**
     * Lockstep's own waker of {@code fiber} (an operation it awaits became ready, its task was aborted, a timeout
     * expired) has just unparked it, on the calling thread. If the fiber was already unparked by a thread outside
     * the runtime — a stray unpark, such as the late one a JDK lock's hand-over can leave behind — the JDK makes
     * this unpark a no-op and hands no continuation over: a scheduler that held the stray continuation back (the
     * simulator does, so that a stray unpark changes nothing) schedules it here, at the moment the fiber is really
     * woken. runtime-uring runs a stray continuation at once (the fiber re-checks what it waits for and parks
     * again), so it does nothing here. Called after {@link #schedule} when the unpark scheduled the fiber itself.
     *
     * @param worker the fiber's home
     * @param fiber the fiber that was woken
     */
    default void woken(Worker worker, Fiber fiber) {
    }

    /**
     * A fiber of {@code worker} is ending on the calling thread, after its task's outcome was published and before
     * the worker's count of live fibers drops: wake the worker if it could otherwise miss that drop. The worker's
     * loop ends only once it sees no live fiber, so a loop that could be waiting in its ring while the count drops
     * must be nudged. The default nudges ({@link Worker#nudge()}: an eventfd write on runtime-uring, a flag in the
     * simulator, whose scheduling reads it). A runner whose fibers run on their worker's own loop thread, which
     * looks at the count again after every continuation it runs, has nothing to wake.
     *
     * @param worker the ending fiber's home
     */
    default void fiberEnding(Worker worker) {
        worker.nudge();
    }

    /**
     * Whether a fiber of {@code worker}, running on the worker's thread and about to park for a request that
     * usually completes at submission, may instead make a turn of the worker's ring itself
     * ({@link InlineTurns#turn}): submit what is queued and take what completed, without waiting. Called by that
     * fiber, on the worker's thread.
     *
     * <p>runtime-uring says yes when no other fiber of the worker is runnable: then parking would only hand the
     * thread to a service turn that submits this one request, while with other fibers runnable, parking lets them
     * queue their requests too, and one {@code io_uring_enter} submits them all. The simulator says yes on the same
     * condition (nothing of the worker queued to run), so that it explores the path production takes; what is
     * queued was decided by its seed, so the answer is too. The default, for runners that do not say, is no.
     *
     * @param worker the fiber's home, whose thread calls this
     * @return true if the fiber may turn the ring itself now
     */
    default boolean mayTurnInline(Worker worker) {
        return false;
    }

    /**
     * Whether an inline turn ({@link #mayTurnInline}) may also wait in the ring for a request that completes
     * later, when nothing else of the worker can run: true only where a fiber waiting in {@code Ring.enter} keeps
     * the worker's thread exactly as a service turn's wait would — the ring's wait blocks the OS thread (an FFM
     * downcall into {@code io_uring_enter} keeps the fiber mounted on its carrier) and the fiber is its worker's
     * only carrier. A ring whose wait parks the calling thread (the scripted test kernel's, a test double's) must
     * not: the parked fiber would hand the thread to a service turn of the same ring. A scheduler that owns every
     * thread (the simulator) never lets a fiber wait. The default is no. Read on the worker's thread and by
     * {@code Fiber.abort} on any thread: the answer must not change during a run.
     *
     * @return true if a fiber may wait in its worker's ring
     */
    default boolean fibersMayWaitInRing() {
        return false;
    }
}
