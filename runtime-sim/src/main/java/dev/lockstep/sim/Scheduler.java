package dev.lockstep.sim;

import dev.lockstep.engine.Fiber;
import dev.lockstep.engine.Worker;
import java.util.ArrayList;
import java.util.List;

/**
 * The seeded choice of what a simulation runs next: a fiber step, a step of a worker's service turn, or (in
 * {@link Scheduling#INTERLEAVED} mode) the kernel moving on while every worker is busy. See {@link Scheduling}
 * for the two orders.
 *
 * <h2>Threads</h2>
 * Confined to the simulator's thread, except {@link #add}: a continuation may be scheduled from any thread
 * (a fiber unparked by a foreign thread is a determinism leak the simulation reports, but the continuation is
 * kept so the fiber is not lost while the run fails). The ready list is guarded by its own monitor; the
 * simulator's thread takes it only for a moment, never while running a step.
 */
final class Scheduler {

    /** What one {@link #step} did. */
    enum Action {
        /** A fiber continuation ran: {@link #lastFiber()} says which. */
        FIBER,
        /** A service turn, or one step of one, ran. */
        SERVICE,
        /** The clock moved to the next ring event although work was runnable. */
        SLIP,
        /** Nothing could run. */
        NOTHING
    }

    /**
     * A fiber continuation waiting to run.
     *
     * @param phase the fiber phase of its worker when it was queued (see {@link #fiberPhase})
     */
    record Ready(Worker worker, Fiber fiber, Runnable continuation, long phase) {
    }

    private final Generator generator;
    private final Auditor auditor;
    private final SimClock clock;
    private final SimKernel kernel;
    private final List<Worker> workers;
    private final boolean interleaved;
    /** For each worker, the next half of its service turn, or -1 between turns. */
    private final int[] turnStep;
    /** The furthest the clock may slip ahead of runnable work. */
    private final long slipWindowNanos;
    private final List<Ready> ready = new ArrayList<>(64);
    /**
     * For each worker, how many service turns it finished: the number of its current fiber phase. As on a
     * production worker thread (ThreadedRunner's loop), the fibers that run between two turns are those queued
     * before the phase began; a fiber queued during the phase (it yielded, another fiber woke it) runs after the
     * next turn, and no turn starts while fibers of the phase are still to run.
     */
    private final long[] fiberPhase;
    private final int[] eligible;
    private final int[] pending;
    /** For each worker, whether its next service half is a candidate this step (see {@link #interleavedStep}). */
    private final boolean[] candidate;
    private long fiberSteps;
    private final java.util.function.Consumer<Fiber> beforeFiberStep;
    private Fiber lastFiber;

    Scheduler(Generator generator, Auditor auditor, SimClock clock, SimKernel kernel, List<Worker> workers,
            Scheduling scheduling, long slipWindowNanos, java.util.function.Consumer<Fiber> beforeFiberStep) {
        this.slipWindowNanos = slipWindowNanos;
        this.beforeFiberStep = beforeFiberStep;
        this.generator = generator;
        this.auditor = auditor;
        this.clock = clock;
        this.kernel = kernel;
        this.workers = workers;
        this.interleaved = scheduling == Scheduling.INTERLEAVED && workers.size() > 1;
        this.turnStep = new int[workers.size()];
        this.fiberPhase = new long[workers.size()];
        this.eligible = new int[workers.size()];
        this.pending = new int[workers.size()];
        this.candidate = new boolean[workers.size()];
        java.util.Arrays.fill(turnStep, -1);
    }

    /** A continuation of {@code fiber} became runnable; any thread. */
    void add(Worker worker, Fiber fiber, Runnable continuation) {
        synchronized (ready) {
            // Read under the lock: a foreign thread (a leak being reported) must see the simulator's last write.
            ready.add(new Ready(worker, fiber, continuation, fiberPhase[worker.index()]));
        }
    }

    private boolean isEligible(Ready continuation) {
        int index = continuation.worker().index();
        return turnStep[index] < 0 && continuation.phase() < fiberPhase[index];
    }

    long fiberSteps() {
        return fiberSteps;
    }

    /** The fiber of the last {@link Action#FIBER} step. */
    Fiber lastFiber() {
        return lastFiber;
    }

    /** Whether some worker has work it would do now without the clock moving (or is half-way through a turn). */
    boolean workersBusy() {
        for (Worker worker : workers) {
            // Entries staged in the ring (a request resubmitted by its completion: EAGAIN, a short transfer) are
            // submitted by the next service turn, not by the clock: the worker is not idle.
            if (turnStep[worker.index()] >= 0 || worker.hasReadyWork() || ((SimRing) worker.ring()).staged() > 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs one step.
     *
     * @param slipLimit the latest time the clock may jump to while work is runnable (the time limit, the crash
     *                  point), or {@link Long#MIN_VALUE} for no jump
     * @return what ran
     */
    Action step(long slipLimit) {
        return interleaved ? interleavedStep(slipLimit) : serviceFirstStep();
    }

    private Action serviceFirstStep() {
        boolean serviced = false;
        for (Worker worker : workers) {
            if (needsService(worker)) {
                worker.service(false, 0);
                serviced = true;
            }
        }
        Ready next = null;
        synchronized (ready) {
            if (!ready.isEmpty()) {
                int pick = ready.size() == 1 ? 0 : generator.nextInt(Site.SCHEDULE, ready.size());
                next = ready.remove(pick);
            }
        }
        if (next != null) {
            runFiber(next);
            return Action.FIBER;
        }
        return serviced ? Action.SERVICE : Action.NOTHING;
    }

    private Action interleavedStep(long slipLimit) {
        java.util.Arrays.fill(eligible, 0);
        java.util.Arrays.fill(pending, 0);
        int fibers = 0;
        synchronized (ready) {
            for (int i = 0; i < ready.size(); i++) {
                Ready continuation = ready.get(i);
                if (isEligible(continuation)) {
                    eligible[continuation.worker().index()]++;
                    fibers++;
                } else {
                    pending[continuation.worker().index()]++;
                }
            }
        }
        // Each worker's candidacy and its ring's next event are worked out once per step: both scan the ring's
        // requests in flight, and the slip below needs the earliest event of every ring.
        int actions = 0;
        long nextRingEvent = Long.MAX_VALUE;
        for (Worker worker : workers) {
            int index = worker.index();
            long ringNext = ((SimRing) worker.ring()).nextEventNanos();
            nextRingEvent = Math.min(nextRingEvent, ringNext);
            candidate[index] = turnStep[index] >= 0
                    || (eligible[index] == 0 && (pending[index] > 0 || needsService(worker, ringNext)));
            if (candidate[index]) {
                actions++;
            }
        }
        if (fibers + actions == 0) {
            return Action.NOTHING;
        }
        if (kernel.ringCount() != workers.size()) {
            nextRingEvent = kernel.nextEventNanos(); // a ring no worker owns: look at every ring
        }
        long slipTo = slipTarget(slipLimit, nextRingEvent);
        int total = fibers + actions + (slipTo == Long.MIN_VALUE ? 0 : 1);
        int pick = total == 1 ? 0 : generator.nextInt(Site.SCHEDULE, total);
        if (pick < fibers) {
            Ready next = null;
            synchronized (ready) {
                for (int i = 0, seen = 0; i < ready.size(); i++) {
                    if (isEligible(ready.get(i)) && seen++ == pick) {
                        next = ready.remove(i);
                        break;
                    }
                }
            }
            runFiber(next);
            return Action.FIBER;
        }
        pick -= fibers;
        if (pick < actions) {
            for (Worker worker : workers) {
                if (candidate[worker.index()] && pick-- == 0) {
                    int index = worker.index();
                    int half = Math.max(0, turnStep[index]);
                    worker.serviceHalf(half);
                    if (half + 1 == Worker.SERVICE_HALVES) {
                        turnStep[index] = -1;
                        synchronized (ready) {
                            fiberPhase[index]++;
                        }
                    } else {
                        turnStep[index] = half + 1;
                    }
                    return Action.SERVICE;
                }
            }
            throw new AssertionError("no worker for pick " + pick);
        }
        auditor.recordU64("clock.slip", slipTo);
        clock.advanceTo(slipTo);
        return Action.SLIP;
    }

    /**
     * Where the clock may jump while work is runnable: the next ring event or timer, when it is in the future,
     * no further than {@link #slipWindowNanos} from now (a worker thread busy or descheduled for as long as one
     * ring request takes) and within {@code limit}; {@link Long#MIN_VALUE} for none.
     */
    private long slipTarget(long limit, long nextRingEvent) {
        long now = clock.nowNanos();
        long next = nextRingEvent;
        for (Worker worker : workers) {
            next = Math.min(next, worker.nextDeadline());
        }
        if (next <= now || next > limit || next - now > slipWindowNanos) {
            return Long.MIN_VALUE;
        }
        return next;
    }

    private void runFiber(Ready next) {
        fiberSteps++;
        lastFiber = next.fiber();
        beforeFiberStep.accept(next.fiber());
        auditor.recordU32U64("fiber.run", next.worker().index(), fiberSteps);
        next.continuation().run();
    }

    /**
     * Whether a service turn of {@code worker} would do anything now: messages, deferred callbacks or queued
     * requests, a due timer, a wake-up (a permit released for it), staged entries or a due completion. A turn that
     * would do nothing is skipped, which saves its audit events; it changes nothing else.
     */
    private boolean needsService(Worker worker) {
        return needsService(worker, ((SimRing) worker.ring()).nextEventNanos());
    }

    /** {@link #needsService(Worker)} with the worker's ring's next event already known. */
    private boolean needsService(Worker worker, long ringNextEventNanos) {
        SimRing ring = (SimRing) worker.ring();
        long now = clock.nowNanos();
        return worker.hasReadyWork() || worker.nextDeadline() <= now || ring.wakeRequested() || ring.staged() > 0
                || ringNextEventNanos <= now;
    }
}
