package dev.lockstep.engine;

import dev.lockstep.engine.task.FiberScheduler;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.worker.Worker;

/**
 * What a runtime that owns every thread and records every step (the simulator) needs from the engine beyond
 * scheduling ({@link FiberScheduler}): the calls the engine makes to it, installed with {@link Engine#hooks}
 * before the root starts, and the two entry points only such a runtime calls. A runtime that needs none of it
 * (runtime-uring) installs nothing and gets {@link #NONE}.
 */
public interface EngineHooks {
    /** Hooks that do nothing: no digest, and every thread may use the runtime's operations. */
    EngineHooks NONE = new EngineHooks() {
    };

    /** The number of halves of a service turn that never waits: see {@link #serviceHalf}. */
    int SERVICE_HALVES = 2;

    /**
     * What {@code Context.digest()} answers: the run's digest so far. Called on the task's thread.
     *
     * @return the digest; empty (the default) for a runtime that keeps none
     */
    default String digest() {
        return "";
    }

    /**
     * Called when one of this runtime's operations or task handles is polled, awaited or closed from a thread that
     * carries none of its workers. The default allows it (runtime-uring allows any thread); the simulator refuses:
     * a plain thread's timing would decide what the simulation sees.
     *
     * @param what what is being done ({@code "Operation.poll"}, ...)
     * @throws RuntimeException to refuse it
     */
    default void foreignCaller(String what) {
    }

    /**
     * One half of a service turn that never waits: {@code service(false, 0)} cut in two where the worker's thread
     * is between critical sections, so a scheduler that owns every thread can run other workers' fibers and turns
     * between the halves, as other threads do in production. Half 0 drains the mailbox, fires due timers, stages
     * queued work and runs the deferred callbacks; half 1 makes one {@code enter} that submits and reaps, fires
     * timers and stages again, and runs the deferred callbacks. Half 0 then half 1, with nothing between them, is
     * exactly {@code service(false, 0)}. Between the halves the worker's own fibers must not run: in production
     * they share its thread.
     *
     * @param worker the worker
     * @param half 0 or 1
     * @return the number of completions reaped (0 in half 0)
     * @throws IllegalArgumentException naming {@code half} unless it is 0 or 1
     */
    static int serviceHalf(Worker worker, int half) {
        return worker.serviceHalf(half);
    }

    /**
     * A service turn that never waits, whose half 0 ran earlier with nothing to do, in one call: what that half 0
     * did, then half 1. A half 0 that finds {@link Worker#hasReadyWork()} false and no timer of the worker due
     * only begins the turn (a failure of an inline turn since the last turn would be thrown, but there is none;
     * the inline turns' budget starts again) and brings the worker's cached clock up to its ring's; so when half 0
     * would have found nothing to do at the moment the ring's clock read {@code ringNanosAtHalfZero}, and none of
     * the worker's fibers ran since (none may between the halves of a turn), this call does what that
     * {@code serviceHalf(worker, 0)} followed now by {@code serviceHalf(worker, 1)} does. Work half 0 would have
     * found is not done: the caller's mistake, not detected.
     *
     * @param worker the worker
     * @param ringNanosAtHalfZero the worker's ring's clock ({@code ring().nowNanos()}) when half 0 found nothing to
     *                            do
     * @return the number of completions reaped
     */
    static int serviceTurnFromHalfOne(Worker worker, long ringNanosAtHalfZero) {
        return worker.serviceTurnFromHalfOne(ringNanosAtHalfZero);
    }

    /**
     * Reports how many of {@code worker}'s fibers the runtime's own scheduler holds queued to run, for the
     * {@code lockstep.fibers.runnable} gauge. Called only by the thread that owns that queue (the simulator's).
     *
     * @param worker the worker
     * @param fibers the count, at least 0
     */
    static void localRunnable(Worker worker, int fibers) {
        worker.metrics().localRunnable(fibers);
    }

    /**
     * Whether the thread being constructed on the calling thread right now is one of the engine's fibers: true
     * only while the engine builds a fiber's thread, when the JDK calls inheritable thread-locals'
     * {@code childValue} on the creating thread. The simulator's leak watch asks there, to tell its own fibers
     * from threads a task starts.
     *
     * @return true while a fiber's thread is being built on the calling thread
     */
    static boolean creatingFiber() {
        return Fibers.creatingFiber();
    }
}
