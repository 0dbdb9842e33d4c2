package dev.lockstep.sim;

import dev.lockstep.engine.task.Fiber;
import dev.lockstep.engine.task.FiberScheduler;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.worker.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;

/**
 * The settling of each fiber step of one {@link Simulation}: the scheduler callback through which the run's
 * engines (the cluster nodes' included) schedule fibers, the hand-off of the continuations that threads schedule
 * while a step is being settled, and the stray continuations held until Lockstep itself wakes their fiber.
 * {@link LeakWatch} says what a step may leave behind and how each leak is caught; this class decides, after every
 * step, which of those it was, so that the step ends the same way on every run of the seed.
 *
 * <p>Threads: {@link #settle} and {@link #beginStep} run on the simulator's thread; the scheduler callback's
 * {@code woken} acts only there or on one of the run's fibers (which run on it, one at a time); its
 * {@code schedule} may be called from any thread, as may {@link #threadCreatedInStep} and {@link #stuckAt}. What
 * they share is guarded by {@code handoff}'s monitor, as each field says.
 */
final class StepSettler {
    private final Simulation run;
    /**
     * The fiber whose step runs or is being settled, and the continuations of it that foreign threads scheduled
     * meanwhile; both guarded by {@code handoff}'s monitor (the queue itself is what {@link #settle} waits on).
     */
    private final LinkedBlockingDeque<Resumption> handoff = new LinkedBlockingDeque<>();
    private Fiber stepFiber;
    /**
     * How many resumptions were ever put in {@code handoff}: raised under its monitor just before each add, read
     * without it. Why that lets {@link #settle} skip the queue's own lock (three lock round trips a step) when
     * nothing came: the queue is empty whenever a step begins, because only two places add to it — a scheduling
     * thread, under the monitor and only while its fiber is {@link #stepFiber}, and settle itself, under the
     * monitor too — and settle's last act is to drain it and clear {@code stepFiber} in one section of that
     * monitor. {@link #beginStep} reads this count, inside the monitor where it sets {@code stepFiber}, into
     * {@link #handoffAddsAtStep}. So while the count still equals that, nothing was added in this step and the
     * queue is empty, as a look at the queue would have said at that moment. An add that is under way when the
     * count is read is one that {@code handoff.isEmpty()} could equally have missed, and it is found as before:
     * settle's final section, under the monitor, sees the raised count and drains the queue, and the stray and
     * leak handling after it is unchanged. The monitor orders every raise, so none is lost; the count is volatile,
     * so a raise made before an add is seen by the simulator's thread before that add's element is.
     */
    private volatile long handoffAdds;
    /** {@link #handoffAdds} when the current step began; the simulator's thread only. */
    private long handoffAddsAtStep;
    /**
     * A thread created during the current step (see {@link LeakWatch}); written under {@code handoff}'s monitor,
     * read first without it (volatile): a null read skips the monitor, which is what taking it and reading null
     * would have said at that moment; a non-null one is taken and cleared under the monitor as before.
     */
    private volatile String stepLeak;

    /**
     * Continuations of fibers waiting in Lockstep that a thread outside the simulation scheduled (a stray unpark,
     * such as the late one a JDK lock shared with another simulation leaves behind), held until Lockstep itself
     * wakes the fiber: see {@link #strayToRelease}. Written under {@code handoff}'s monitor, read without it.
     */
    private final java.util.concurrent.ConcurrentHashMap<Fiber, Runnable> strays =
            new java.util.concurrent.ConcurrentHashMap<>();
    /**
     * The fiber the simulator last queued, cleared when a fiber's step begins: if Lockstep's waker finds it here,
     * its own unpark scheduled the fiber. Only the simulator's thread and its fibers (which run on it, one at a
     * time) touch it.
     */
    private Fiber lastAdded;

    StepSettler(Simulation run) {
        this.run = run;
    }

    /**
     * The callback that schedules every fiber of the run, the cluster nodes' included, for the run on
     * {@code simThread}.
     */
    FiberScheduler fiberScheduler(Thread simThread) {
        return new FiberScheduler() {
            @Override
            public void schedule(Worker worker, Fiber fiber, Runnable continuation) {
                Thread caller = Thread.currentThread();
                boolean ours = isOurs(caller, simThread);
                if (caller != fiber.thread()) {
                    synchronized (handoff) {
                        if (fiber == stepFiber) {
                            // settle() decides: the end of a JDK lock wait, a stray unpark, or a leak. From the
                            // simulator's own thread it is the JDK resubmitting a fiber whose stack settle() read.
                            handoffAdds++; // before the add: see handoffAdds
                            handoff.add(new Resumption(continuation, !ours));
                            return;
                        }
                        if (!strays.isEmpty() && strays.containsKey(fiber)) {
                            // The JDK resubmitting a held fiber after its stack was read: it stays held.
                            strays.put(fiber, continuation);
                            return;
                        }
                        if (!ours && LeakWatch.parkedInLockstep(fiber.thread())) {
                            // A stray unpark of a fiber waiting in Lockstep: held until Lockstep wakes it (woken).
                            strays.put(fiber, continuation);
                            return;
                        }
                    }
                }
                if (!ours) {
                    run.confinement.reportLeak("a fiber of worker " + worker.index() + " was resumed from thread '"
                            + caller.getName() + "': " + LeakWatch.likelyCause(caller));
                    // Queue it anyway, so the fiber is not lost while the run fails.
                }
                lastAdded = fiber;
                run.scheduler().add(worker, fiber, continuation, ours);
            }

            /**
             * As runtime-uring decides (its worker's run queues empty), so that the simulator runs the inline turn
             * production runs: a fiber about to park for a send or a buffered read, with nothing else of its
             * worker queued, submits it from its own step. The decision reads only the scheduler's state, which
             * the seed decided: no draw of its own. The simulator never lets a fiber wait in its ring
             * ({@code fibersMayWaitInRing} keeps its default), so a turn here only submits and reaps what is due.
             */
            @Override
            public boolean mayTurnInline(Worker worker) {
                return run.scheduler().nothingQueuedFor(worker);
            }

            @Override
            public void woken(Worker worker, Fiber fiber) {
                if (lastAdded == fiber || !isOurs(Thread.currentThread(), simThread)) {
                    return; // the common case: this unpark scheduled the fiber, which has not run since
                }
                Runnable held = strayToRelease(fiber);
                if (held != null) {
                    lastAdded = fiber;
                    // woken() gets here only on the simulator's thread
                    run.scheduler().add(worker, fiber, held, true);
                }
            }
        };
    }

    /**
     * The fiber whose step runs or is being settled, or null: read without the monitor by the simulator's thread
     * and its fibers, which are the only ones to set it.
     */
    Fiber stepFiber() {
        return stepFiber;
    }

    /** Where the run is stuck, for a caller that gave up waiting: the fiber whose step never ended. Any thread. */
    String stuckAt() {
        Fiber stuck;
        synchronized (handoff) {
            stuck = stepFiber;
        }
        Thread fiber = stuck == null ? null : stuck.thread();
        return fiber == null ? "" : ", in the step of fiber '" + fiber.getName() + "'"
                + LeakWatch.where(fiber.getStackTrace());
    }

    /** Called by the scheduler before a fiber step: a foreign resumption of this fiber is handed to {@link #settle}. */
    void beginStep(Fiber fiber) {
        lastAdded = null;
        synchronized (handoff) {
            stepFiber = fiber;
            handoffAddsAtStep = handoffAdds;
        }
    }

    /** Whether {@code caller} is this simulation's thread or one of its fibers. */
    private boolean isOurs(Thread caller, Thread simThread) {
        if (caller == simThread) {
            return true;
        }
        Fiber current = caller.isVirtual() ? Fibers.current() : null; // one thread-local lookup, not two
        return current != null && run.ownsEngine(current.home().engine());
    }

    /**
     * Lockstep's waker has just unparked {@code fiber}, and did not schedule it: the continuation to schedule now,
     * or null if there is none to schedule.
     *
     * <p>A stray unpark from a thread outside the simulation (the late unpark a JDK lock's hand-over leaves
     * behind, when another simulation in this JVM shares the lock) of a fiber parked in Lockstep is not a leak:
     * the fiber would only re-check what it waits for and park again. But when its continuation runs would be the
     * other thread's timing, so it is held ({@link #strays}) and run from the moment Lockstep wakes the fiber — the
     * moment its continuation would be scheduled had the stray never come, because the JDK makes this unpark of
     * an already unparked fiber a no-op. The other thread may have won the unpark (the fiber reads as woken) and
     * not yet handed the continuation over: it is on its way, and waited for, spinning, so that neither the wake
     * nor the moment it is scheduled is lost. (A spin, not a monitor wait: this may run on a fiber, which a
     * monitor wait would unmount.)
     */
    private Runnable strayToRelease(Fiber fiber) {
        Runnable held = strays.remove(fiber);
        if (held != null) {
            return held;
        }
        Thread thread = fiber.thread();
        if (thread == null || Fibers.current() == fiber || LeakWatch.standing(thread) != LeakWatch.Standing.WOKEN
                || !LeakWatch.parkedInLockstep(thread) || run.scheduler().isQueued(fiber)) {
            return null; // it runs (it woke itself), it is queued already, or it was not parked in Lockstep
        }
        synchronized (handoff) {
            if (fiber == stepFiber) {
                return null; // settle() has its continuation
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LeakWatch.HANDOFF_LIMIT_SECONDS);
        while ((held = strays.remove(fiber)) == null) {
            if (System.nanoTime() - deadline > 0 || run.interruptRequested()) {
                run.confinement.reportLeak(LeakWatch.heldUp(fiber));
                return null;
            }
            Thread.onSpinWait();
        }
        return held;
    }

    /** Removes and returns a resumption of the fiber being settled that the simulator's own thread made. */
    private Resumption takeOwnResumption() {
        if (!handoffAddedThisStep() || handoff.isEmpty()) {
            return null; // the common case, without the monitor: an empty queue only fills under it, below
        }
        synchronized (handoff) {
            for (java.util.Iterator<Resumption> it = handoff.iterator(); it.hasNext(); ) {
                Resumption resumption = it.next();
                if (!resumption.foreign()) {
                    it.remove();
                    return resumption;
                }
            }
            return null;
        }
    }

    /** Whether a thread outside the simulation scheduled a continuation of the fiber being settled. */
    private boolean anyForeignResumption() {
        if (!handoffAddedThisStep() || handoff.isEmpty()) {
            return false;
        }
        synchronized (handoff) {
            for (Resumption resumption : handoff) {
                if (resumption.foreign()) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Whether anything was put in {@code handoff} since this step began: if not, it is empty (see handoffAdds). */
    private boolean handoffAddedThisStep() {
        return handoffAdds != handoffAddsAtStep;
    }

    /** Removes and returns every resumption of the fiber being settled that the simulator's own thread made. */
    private List<Resumption> takeOwnResumptions() {
        List<Resumption> own = new ArrayList<>();
        for (Resumption next = takeOwnResumption(); next != null; next = takeOwnResumption()) {
            own.add(next);
        }
        return own;
    }

    /** The next resumption of the fiber being settled, waiting for it in real time up to the limit; or null. */
    private Resumption pollHandoff() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LeakWatch.HANDOFF_LIMIT_SECONDS);
        try {
            // In slices, so that an interrupt of the caller (see SimCarrier) is not kept waiting for the limit.
            while (!run.interruptRequested() && System.nanoTime() - deadline < 0) {
                Resumption next = handoff.poll(100, TimeUnit.MILLISECONDS);
                if (next != null) {
                    return next;
                }
            }
            return null;
        } catch (InterruptedException interruptedWait) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** A continuation of the fiber being settled, and whether a thread outside the simulation scheduled it. */
    private record Resumption(Runnable continuation, boolean foreign) {
    }

    /** A thread was created by this simulation's thread or one of its fibers: see {@link LeakWatch}. */
    void threadCreatedInStep(String message) {
        synchronized (handoff) {
            if (stepLeak == null) {
                stepLeak = message;
            }
        }
    }

    /**
     * After a fiber's step: the leak it caused, or null. A fiber held up by a lock the JDK holds inside one of
     * its calls (another simulation in this JVM printing to the same stream) is waited for and run on within this
     * step, so the step ends the same way however long the other thread took.
     *
     * @param carrier the carrier the run is on, whose queue catches work handed to the common pool; or null
     */
    String settle(Fiber fiber, SimCarrier carrier) {
        Thread thread = fiber.thread();
        List<Resumption> leftover = List.of();
        List<Resumption> yields = List.of();
        try {
            for (int heldUp = 0; ; heldUp++) {
                if (stepLeak != null) {
                    synchronized (handoff) {
                        String leak = stepLeak;
                        stepLeak = null;
                        return leak;
                    }
                }
                if (thread == null) {
                    return null;
                }
                if (run.failed()) {
                    return null; // the verdict is in: the run only shuts down
                }
                String pooled = carrier == null ? null : carrier.pooledWork();
                if (pooled != null) {
                    return LeakWatch.pooledWork(thread, pooled);
                }
                String timed = LeakWatch.timedPark(thread);
                if (timed != null) {
                    // Before any resumption is looked at: the JDK's timer may have ended the park already and
                    // handed the continuation back (to this thread, if it fired while the fiber was parking).
                    return timed;
                }
                LeakWatch.Standing standing = LeakWatch.standing(thread);
                if (standing == LeakWatch.Standing.YIELDED) {
                    // Thread.yield: the JDK resubmitted the fiber from its carrier, the simulator's thread, before
                    // its step returned. It runs as a later step, as a yield must.
                    yields = takeOwnResumptions();
                    return null;
                }
                Resumption own = takeOwnResumption();
                if (own != null) {
                    // Not a yield: the end of a JDK lock wait that came while the fiber was parking (the JDK then
                    // resubmits it from the carrier), or the JDK resubmitting it after settle() read its stack. The
                    // step goes on (or the run is a no-op, when the continuation it duplicates ran already).
                    own.continuation().run();
                    continue;
                }
                if (standing == LeakWatch.Standing.DONE) {
                    return null;
                }
                boolean resumedFromOutside = anyForeignResumption();
                if (standing == LeakWatch.Standing.WOKEN && !resumedFromOutside) {
                    // Another thread ended the wait and is handing the continuation over (the JDK marks the fiber
                    // runnable first, then submits it): wait for it rather than take "runnable" for "done".
                    Resumption coming = pollHandoff();
                    if (coming == null) {
                        return LeakWatch.heldUp(fiber);
                    }
                    synchronized (handoff) {
                        handoffAdds++; // before the add: see handoffAdds
                        handoff.addFirst(coming);
                    }
                    continue;
                }
                if (resumedFromOutside && LeakWatch.parkedInLockstep(thread)) {
                    // A stray unpark of a fiber parked in Lockstep (see strayToRelease): held below, no leak. Its
                    // stack is not read: that would make the JDK resubmit it from here.
                    return null;
                }
                LeakWatch.Verdict verdict = LeakWatch.classify(thread, resumedFromOutside);
                switch (verdict.kind()) {
                    case FINE -> {
                        return null;
                    }
                    case LEAK -> {
                        return verdict.message();
                    }
                    case AGAIN -> {
                        continue;
                    }
                    case JDK_LOCK -> {
                        Resumption resumed = pollHandoff();
                        if (resumed == null || heldUp == LeakWatch.HANDOFF_LIMIT_TIMES) {
                            return LeakWatch.heldUp(fiber);
                        }
                        resumed.continuation().run();
                    }
                }
            }
        } finally {
            synchronized (handoff) {
                stepFiber = null;
                if (handoffAddedThisStep() && !handoff.isEmpty()) {
                    leftover = new ArrayList<>();
                    handoff.drainTo(leftover);
                }
            }
            for (Resumption yielded : yields) {
                run.scheduler().add(fiber.home(), fiber, yielded.continuation(), true); // settle(): the loop's thread
            }
            for (Resumption stray : leftover) {
                if (stray.foreign() && LeakWatch.parkedInLockstep(thread)) {
                    if (LeakWatch.standing(thread) == LeakWatch.Standing.WOKEN) {
                        // A stray unpark of a fiber parked in Lockstep: held until Lockstep wakes it.
                        synchronized (handoff) {
                            strays.put(fiber, stray.continuation());
                        }
                    }
                    // Parked again: the stray's continuation ran already (a duplicate), nothing to keep.
                    continue;
                }
                if (stray.foreign()) {
                    // Resumed by a thread outside the simulation while it waited on something of the user's.
                    run.confinement.reportLeak("fiber '" + thread.getName() + "' was resumed from a thread outside the"
                            + " simulation while it waited on something that is not Lockstep's");
                }
                run.scheduler().add(fiber.home(), fiber, stray.continuation(), true);
            }
        }
    }
}
