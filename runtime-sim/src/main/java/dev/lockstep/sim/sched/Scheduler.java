package dev.lockstep.sim.sched;

import dev.lockstep.engine.EngineHooks;
import dev.lockstep.engine.task.Fiber;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.sim.Priorities;
import dev.lockstep.sim.Scheduling;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.audit.AuditKind;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import dev.lockstep.sim.os.SimClock;
import dev.lockstep.sim.os.SimKernel;
import dev.lockstep.sim.os.SimRing;
import java.util.ArrayList;
import java.util.List;

/**
 * The seeded choice of what a simulation runs next: a fiber step, a step of a worker's service turn, or (in
 * {@link Scheduling#INTERLEAVED} mode) the kernel moving on while every worker is busy. See {@link Scheduling}
 * for the two orders.
 *
 * <h2>Threads</h2>
 * Confined to the simulator's thread: the run's carrier and the fibers it mounts, which run one at a time in its
 * program order (a fiber's step is a call the carrier makes), so their reads and writes of the ready list and its
 * counts need no lock. One call comes from elsewhere: {@link #add} with {@code fromSimulatorThread} false, a
 * fiber unparked by a thread outside the simulation (a determinism leak the simulation reports, whose
 * continuation is kept so the fiber is not lost while the run fails). Such a continuation is handed over through
 * a {@link ForeignHandoff}, which every step asks with one volatile read and drains when it says so (why none is
 * left behind is argued there, and model-checked). It joins the ready list at the step that drains it, which
 * only a failing run ever sees.
 *
 * <h2>Slots</h2>
 * Every worker has a slot, its position in this scheduler's list: the run's own workers first, slot = index, then
 * the workers of {@link SimCluster} nodes in the order they started ({@link #addWorker}). A halted worker (its node
 * paused) is skipped: its fibers do not run, it gets no service turn, and neither its timers nor its ring's events
 * move the clock. A retired worker ({@link #retire}: its node's lifetime ended) is halted for good and leaves
 * the live slots, those a step looks at, so a run whose nodes restarted many times does not look at every
 * lifetime it ever had; the live slots keep their order, so the choices a step offers are those it offered when it
 * looked at every slot and skipped the halted ones ({@link WorkerSlots} keeps which slots run and which are
 * live). Timer deadlines are each worker's own time;
 * {@link #globalDeadline} turns them into the simulation's (the same value, unless the worker is on a node with a
 * clock of its own).
 *
 * <h2>A half 0 with nothing to do takes no step</h2>
 * In {@link Scheduling#INTERLEAVED} mode a worker between turns, with no continuation of an ended phase left to
 * run, may start a turn when it has work or continuations waiting for the turn to end; half 0 drains the mailbox,
 * fires due timers, stages queued requests and runs deferred callbacks, half 1 enters the ring. A turn often starts
 * only for half 1 (a completion due, entries staged), and its half 0 then finds nothing: no mail, no deferred
 * callback, no queued request ({@link Worker#hasReadyWork()} false) and no due timer. Such a half 0 changes nothing
 * but the worker's cached clock and its place in the turn, and no step offers it: each step that finds it possible
 * records the ring's clock ({@link #idleHalfZeroNanos}) and offers instead a service step that runs half 1 with
 * that half 0 taken as run at that moment ({@code EngineHooks.serviceTurnFromHalfOne}). No interleaving is lost
 * and none is added:
 * <ul>
 *   <li>A half 0 with nothing to do neither enables nor disables any other step: the worker's fibers may not run
 *       between turns with none of an ended phase left (what may run only grows when a phase ends, in half 1), nor
 *       between the halves; in either state the worker's service step is offered (half 1 always is in a turn, and a
 *       worker whose half 0 a step found idle keeps {@link #FROM_HALF_ONE} on offer until its turn runs). So any
 *       schedule "half 0 at step s, other steps, half 1 at step t" of the plain order makes the same steps, with the
 *       same effects, as the one that leaves half 0 out and runs half 1 at t as {@link #FROM_HALF_ONE}, the worker's
 *       clock brought to what it read at s: that is what this order offers at t. A later step may have given half 0
 *       work (mail came, a timer fell due); the offer stands, as half 1 after the idle half 0 stood in the plain
 *       order, and {@link #NEXT_HALF} is offered beside it, the half 0 that ran late enough to do that work.</li>
 *   <li>Conversely each step of this order is a step of the plain order from the same state, or (for
 *       {@link #FROM_HALF_ONE}) the plain order's idle half 0 at the last step that found it idle followed by its
 *       half 1 now.</li>
 * </ul>
 * The choices differ, so the decision stream and the digests differ from the plain order's, but the schedules
 * reachable are the same. {@link Scheduling#SERVICE_FIRST} runs whole turns and only for a worker with work.
 */
public final class Scheduler {

    /** What one {@link #step} did. */
    public enum Action {
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
    record Ready(Worker worker, int slot, Fiber fiber, Runnable continuation, long phase) {
    }

    private final Generator generator;
    private final Auditor auditor;
    private final SimClock clock;
    private final SimKernel kernel;
    private final List<Worker> workers;
    /** Each slot's worker's ring, in slot order (a worker's ring never changes). */
    private SimRing[] rings;
    /** How many of {@link #workers} are the run's own (slots {@code 0..mainWorkers-1}, each its index). */
    private final int mainWorkers;
    /** The slot of every node worker (lookups only). */
    private final java.util.IdentityHashMap<Worker, Integer> nodeSlots = new java.util.IdentityHashMap<>();
    private final Scheduling scheduling;
    /** Whether the run interleaves (see {@link Scheduling}); set again when a node's workers join. */
    private boolean interleaved;
    /** For each worker, the next half of its service turn, or -1 between turns. */
    private int[] turnStep;
    /** Which slots run and which are live (see the class doc). */
    private final WorkerSlots slots;
    /** The furthest the clock may slip ahead of runnable work. */
    private final long slipWindowNanos;
    private final List<Ready> ready = new ArrayList<>(64);
    /** Continuations scheduled from threads outside the simulation, for the next step to queue: see the class doc. */
    private final ForeignHandoff<ForeignAdd> foreignAdds = new ForeignHandoff<>();

    /** A continuation scheduled from outside the simulation, not yet queued. */
    private record ForeignAdd(Worker worker, Fiber fiber, Runnable continuation) {
    }
    /**
     * For each worker, how many service turns it finished: the number of its current fiber phase. As on a
     * production worker thread (ThreadedRunner's loop), the fibers that run between two turns are those queued
     * before the phase began; a fiber queued during the phase (it yielded, another fiber woke it) runs after the
     * next turn, and no turn starts while fibers of the phase are still to run.
     */
    private long[] fiberPhase;
    /**
     * For each slot, how many continuations in {@link #ready} were queued in an earlier fiber phase of its worker
     * than the current one (they may run once no turn of the worker is under way), and how many in the current
     * phase (they wait for the next turn to end). Kept as continuations are added, removed and phases end, so a
     * step counts what may run without reading the list.
     */
    private int[] queuedEarlier;
    private int[] queuedNow;
    private int[] eligible;
    private int[] pending;
    /**
     * For each worker, the service steps it offers this step (see {@link #interleavedStep}): {@link #NEXT_HALF},
     * {@link #FROM_HALF_ONE}, both, or none (0).
     */
    private int[] offers;
    /** A service step that runs the worker's next half: half 0 between turns, half 1 in one. */
    private static final int NEXT_HALF = 1;
    /**
     * A service step between turns that runs half 1 as the turn's first step, its half 0 taken as run when a step
     * last found it with nothing to do ({@link #idleHalfZeroNanos}); see the class doc.
     */
    private static final int FROM_HALF_ONE = 2;
    /**
     * For each worker between turns, its ring's clock when a step last found that it could start a turn whose
     * half 0 would do nothing, or {@link #NO_IDLE_HALF_ZERO} if no step did since its last turn (see the class
     * doc).
     */
    private long[] idleHalfZeroNanos;
    private static final long NO_IDLE_HALF_ZERO = Long.MIN_VALUE;
    private long fiberSteps;
    /**
     * Steps that ran a service turn (service-first mode), or one half of one or a turn from its half 1 (interleaved
     * mode).
     */
    private long serviceSteps;
    /** Service turns that ran to their end: whole ones (service-first mode) and those whose half 1 ran. */
    private long serviceTurns;
    /** Steps that moved the clock although work was runnable ({@link Action#SLIP}). */
    private long clockSlips;
    private final java.util.function.Consumer<Fiber> beforeFiberStep;
    private Fiber lastFiber;
    /** Priority scheduling of fibers ({@link Priorities}): the choice among fibers while it is on. */
    private final PriorityChoice priorityChoice;

    public Scheduler(Generator generator, Auditor auditor, SimClock clock, SimKernel kernel, List<Worker> workers,
            Scheduling scheduling, long slipWindowNanos, java.util.function.Consumer<Fiber> beforeFiberStep) {
        this(generator, auditor, clock, kernel, workers, scheduling, slipWindowNanos, beforeFiberStep,
                Priorities.OFF);
    }

    public Scheduler(Generator generator, Auditor auditor, SimClock clock, SimKernel kernel, List<Worker> workers,
            Scheduling scheduling, long slipWindowNanos, java.util.function.Consumer<Fiber> beforeFiberStep,
            Priorities priorities) {
        this.priorityChoice = new PriorityChoice(generator, priorities);
        this.slipWindowNanos = slipWindowNanos;
        this.beforeFiberStep = beforeFiberStep;
        this.generator = generator;
        this.auditor = auditor;
        this.clock = clock;
        this.kernel = kernel;
        this.workers = new ArrayList<>(workers);
        this.mainWorkers = workers.size();
        this.scheduling = scheduling;
        this.interleaved = scheduling == Scheduling.INTERLEAVED && workers.size() > 1;
        this.turnStep = new int[workers.size()];
        this.slots = new WorkerSlots(workers.size());
        this.fiberPhase = new long[workers.size()];
        this.queuedEarlier = new int[workers.size()];
        this.queuedNow = new int[workers.size()];
        this.rings = new SimRing[workers.size()];
        for (int slot = 0; slot < rings.length; slot++) {
            rings[slot] = (SimRing) workers.get(slot).ring();
        }
        this.eligible = new int[workers.size()];
        this.pending = new int[workers.size()];
        this.offers = new int[workers.size()];
        this.idleHalfZeroNanos = new long[workers.size()];
        java.util.Arrays.fill(turnStep, -1);
        java.util.Arrays.fill(idleHalfZeroNanos, NO_IDLE_HALF_ZERO);
    }

    /**
     * A continuation of {@code fiber} became runnable.
     *
     * @param fromSimulatorThread whether the caller is the simulator's thread (its carrier, or a fiber it mounts);
     *                            if not, the continuation is handed over to the next step (see the class doc)
     */
    public void add(Worker worker, Fiber fiber, Runnable continuation, boolean fromSimulatorThread) {
        if (!fromSimulatorThread) {
            foreignAdds.offer(new ForeignAdd(worker, fiber, continuation));
            return;
        }
        int slot = slotOf(worker);
        priorityChoice.assignInitial(fiber);
        ready.add(new Ready(worker, slot, fiber, continuation, fiberPhase[slot]));
        queuedNow[slot]++;
        EngineHooks.localRunnable(worker, queuedNow[slot] + queuedEarlier[slot]);
    }

    /** The slot of {@code worker}. */
    private int slotOf(Worker worker) {
        int index = worker.index();
        if (index < mainWorkers && workers.get(index) == worker) {
            return index;
        }
        Integer slot = nodeSlots.get(worker);
        if (slot == null) {
            throw new IllegalStateException(worker + " of " + worker.engine() + " is not scheduled by this simulation");
        }
        return slot;
    }

    /**
     * Schedules a node's worker from now on, in the next free slot. Simulator thread.
     *
     * @param worker a worker of a {@link SimCluster} node's engine
     */
    public void addWorker(Worker worker) {
        int slot = workers.size();
        workers.add(worker);
        nodeSlots.put(worker, slot);
        int size = workers.size();
        turnStep = java.util.Arrays.copyOf(turnStep, size);
        turnStep[slot] = -1;
        slots.add(slot);
        fiberPhase = java.util.Arrays.copyOf(fiberPhase, size);
        queuedEarlier = java.util.Arrays.copyOf(queuedEarlier, size);
        queuedNow = java.util.Arrays.copyOf(queuedNow, size);
        rings = java.util.Arrays.copyOf(rings, size);
        rings[slot] = (SimRing) worker.ring();
        eligible = java.util.Arrays.copyOf(eligible, size);
        pending = java.util.Arrays.copyOf(pending, size);
        offers = java.util.Arrays.copyOf(offers, size);
        idleHalfZeroNanos = java.util.Arrays.copyOf(idleHalfZeroNanos, size);
        idleHalfZeroNanos[slot] = NO_IDLE_HALF_ZERO;
        interleaved = scheduling == Scheduling.INTERLEAVED;
    }

    /**
     * Halts or resumes a node's worker (see the class doc). A worker halted half-way through a service turn
     * finishes that turn when it resumes. Simulator thread.
     *
     * @param worker a worker given to {@link #addWorker}
     * @param halt true to halt, false to resume
     */
    public void halt(Worker worker, boolean halt) {
        slots.halt(slotOf(worker), halt, worker);
    }

    /**
     * Stops scheduling a node's worker for good: it is halted and no step looks at its slot again (see the class
     * doc). Simulator thread.
     *
     * @param worker a worker given to {@link #addWorker}
     */
    public void retire(Worker worker) {
        slots.retire(slotOf(worker));
    }

    /** Whether a step looks at {@code worker}'s slot: it was scheduled and not {@link #retire}d (simulator thread). */
    public boolean looksAt(Worker worker) {
        return slots.isLive(slotOf(worker));
    }

    /** The earliest timer deadline of the worker in {@code slot}, in the simulation's time. */
    private long globalDeadline(int slot) {
        Worker worker = workers.get(slot);
        long deadline = worker.nextDeadline();
        if (slot < mainWorkers || deadline == Long.MAX_VALUE) {
            return deadline;
        }
        return ((SimRing) worker.ring()).kernel().globalNanos(deadline);
    }

    /**
     * The earliest timer deadline of every running worker, in the simulation's time: where the clock jumps when
     * nothing can run.
     *
     * @return epoch nanoseconds, or {@code Long.MAX_VALUE}
     */
    public long nextDeadlineNanos() {
        long next = Long.MAX_VALUE;
        for (int at = 0; at < slots.liveCount(); at++) {
            int slot = slots.live(at);
            if (slots.runs(slot)) {
                next = Math.min(next, globalDeadline(slot));
            }
        }
        return next;
    }

    /**
     * The earliest ring event of every node worker that runs (the run's own kernel answers for its own rings).
     *
     * @return epoch nanoseconds, or {@code Long.MAX_VALUE}
     */
    public long nextNodeRingEventNanos() {
        long next = Long.MAX_VALUE;
        for (int at = 0; at < slots.liveCount(); at++) {
            int slot = slots.live(at);
            if (slot >= mainWorkers && slots.runs(slot) && !workers.get(slot).isRetired()) {
                next = Math.min(next, ((SimRing) workers.get(slot).ring()).nextEventNanos());
            }
        }
        return next;
    }

    /**
     * Whether no continuation of {@code worker}'s fibers is queued, in any phase: nothing else of the worker could
     * run now. What runtime-uring asks before a fiber turns its worker's ring itself ({@code
     * FiberScheduler.mayTurnInline}: its worker's run queues are empty). Simulator thread (the asking fiber's
     * step).
     */
    public boolean nothingQueuedFor(Worker worker) {
        int slot = slotOf(worker);
        return queuedEarlier[slot] + queuedNow[slot] == 0;
    }

    /** Whether a continuation of {@code fiber} waits to run. Simulator thread. */
    public boolean isQueued(Fiber fiber) {
        for (int i = 0; i < ready.size(); i++) {
            if (ready.get(i).fiber() == fiber) {
                return true;
            }
        }
        return foreignAdds.anyWaiting(added -> added.fiber() == fiber);
    }

    /** Removes the continuation at {@code index} of {@link #ready}, keeping the counts. */
    private Ready removeReady(int index) {
        Ready removed = ready.remove(index);
        if (removed.phase() < fiberPhase[removed.slot()]) {
            queuedEarlier[removed.slot()]--;
        } else {
            queuedNow[removed.slot()]--;
        }
        assert queuedEarlier[removed.slot()] >= 0 && queuedNow[removed.slot()] >= 0 : "worker slot "
                + removed.slot() + " counts " + queuedEarlier[removed.slot()] + " earlier and "
                + queuedNow[removed.slot()] + " current continuations";
        EngineHooks.localRunnable(removed.worker(), queuedNow[removed.slot()] + queuedEarlier[removed.slot()]);
        return removed;
    }

    /** Ends the current fiber phase of the worker in {@code slot}: what was queued in it may run. */
    private void endFiberPhase(int slot) {
        fiberPhase[slot]++;
        queuedEarlier[slot] += queuedNow[slot];
        queuedNow[slot] = 0;
    }

    private boolean isEligible(Ready continuation) {
        int slot = continuation.slot();
        return turnStep[slot] < 0 && continuation.phase() < fiberPhase[slot] && slots.runs(slot);
    }

    public long fiberSteps() {
        return fiberSteps;
    }

    public long serviceSteps() {
        return serviceSteps;
    }

    public long serviceTurns() {
        return serviceTurns;
    }

    public long clockSlips() {
        return clockSlips;
    }

    /** The fiber of the last {@link Action#FIBER} step. */
    public Fiber lastFiber() {
        return lastFiber;
    }

    /** Whether some worker has work it would do now without the clock moving (or is half-way through a turn). */
    public boolean workersBusy() {
        for (int at = 0; at < slots.liveCount(); at++) {
            int slot = slots.live(at);
            Worker worker = workers.get(slot);
            // Entries staged in the ring (a request resubmitted by its completion: EAGAIN, a short transfer) are
            // submitted by the next service turn, not by the clock: the worker is not idle.
            if (slots.runs(slot) && (turnStep[slot] >= 0 || idleHalfZeroNanos[slot] != NO_IDLE_HALF_ZERO
                    || worker.hasReadyWork() || rings[slot].staged() > 0)) {
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
    public Action step(long slipLimit) {
        if (foreignAdds.pending()) {
            foreignAdds.drain(added -> add(added.worker(), added.fiber(), added.continuation(), true));
        }
        return interleaved ? interleavedStep(slipLimit) : serviceFirstStep();
    }

    private Action serviceFirstStep() {
        boolean serviced = false;
        for (int at = 0; at < slots.liveCount(); at++) {
            int slot = slots.live(at);
            Worker worker = workers.get(slot);
            if (slots.runs(slot) && needsService(worker, slot)) {
                worker.service(false, 0);
                serviceTurns++;
                serviced = true;
            }
        }
        Ready next = null;
        int runnable = ready.size();
        if (runnable > 0 && workers.size() > mainWorkers) {
            runnable = 0;
            for (Ready continuation : ready) {
                runnable += slots.runs(continuation.slot()) ? 1 : 0;
            }
        }
        if (runnable > 0 && priorityChoice.prioritized(fiberSteps)) {
            // Among the continuations whose worker runs.
            next = removeReady(priorityChoice.highestPriority(ready, candidate -> slots.runs(candidate.slot())));
        } else if (runnable > 0 && workers.size() == mainWorkers) {
            next = removeReady(runnable == 1 ? 0 : generator.nextInt(Site.SCHEDULE, runnable));
        } else if (runnable > 0) {
            int pick = runnable == 1 ? 0 : generator.nextInt(Site.SCHEDULE, runnable);
            for (int i = 0, seen = 0; i < ready.size(); i++) {
                if (slots.runs(ready.get(i).slot()) && seen++ == pick) {
                    next = removeReady(i);
                    break;
                }
            }
        }
        if (serviced) {
            serviceSteps++;
        }
        if (next != null) {
            runFiber(next);
            return Action.FIBER;
        }
        return serviced ? Action.SERVICE : Action.NOTHING;
    }

    private Action interleavedStep(long slipLimit) {
        int fibers = 0;
        // What isEligible says of each queued continuation, counted per worker: those of an earlier phase may
        // run unless a turn of their worker is under way; the rest wait for a turn, and a halted worker's wait.
        // A retired worker's continuations (a fiber the end of the run left parked) count for nothing, as a halted
        // worker's did.
        for (int at = 0; at < slots.liveCount(); at++) {
            int slot = slots.live(at);
            if (!slots.runs(slot)) {
                eligible[slot] = 0;
                pending[slot] = 0;
            } else if (turnStep[slot] < 0) {
                eligible[slot] = queuedEarlier[slot];
                pending[slot] = queuedNow[slot];
                fibers += queuedEarlier[slot];
            } else {
                eligible[slot] = 0;
                pending[slot] = queuedEarlier[slot] + queuedNow[slot];
            }
        }
        // Each worker's candidacy and its ring's next event are worked out once per step: both scan the ring's
        // requests in flight, and the slip below needs the earliest event of every ring.
        int actions = 0;
        long nextRingEvent = Long.MAX_VALUE;
        long nextDeadline = Long.MAX_VALUE;
        long now = clock.nowNanos();
        for (int at = 0; at < slots.liveCount(); at++) {
            int index = slots.live(at);
            offers[index] = 0;
            if (!slots.runs(index)) {
                continue;
            }
            Worker worker = workers.get(index);
            SimRing ring = rings[index];
            long ringNext = ring.nextEventNanos();
            nextRingEvent = Math.min(nextRingEvent, ringNext);
            long deadline = globalDeadline(index);
            nextDeadline = Math.min(nextDeadline, deadline);
            if (turnStep[index] >= 0) {
                offers[index] = NEXT_HALF;
                actions++;
                continue;
            }
            if (eligible[index] > 0) {
                continue;
            }
            boolean halfZeroWork = worker.hasReadyWork() || deadline <= now;
            boolean idleHalfZeroRan = idleHalfZeroNanos[index] != NO_IDLE_HALF_ZERO;
            if (!halfZeroWork && (idleHalfZeroRan || pending[index] > 0 || ring.wakeRequested() || ring.staged() > 0
                    || ringNext <= now)) {
                // It may start a turn, and half 0 would do nothing but read the clock: see the class doc.
                idleHalfZeroNanos[index] = ring.measureNanos();
                idleHalfZeroRan = true;
            }
            if (halfZeroWork) {
                offers[index] = NEXT_HALF;
                actions++;
            }
            if (idleHalfZeroRan) {
                offers[index] |= FROM_HALF_ONE;
                actions++;
            }
        }
        if (fibers + actions == 0) {
            return Action.NOTHING;
        }
        if (kernel.ringCount() != mainWorkers) {
            // A ring no worker owns: look at every ring of the run's kernel.
            nextRingEvent = Math.min(nextRingEvent, kernel.nextEventNanos());
        }
        long slipTo = slipTarget(slipLimit, nextRingEvent, nextDeadline);
        int total = fibers + actions + (slipTo == Long.MIN_VALUE ? 0 : 1);
        int pick = total == 1 ? 0 : generator.nextInt(Site.SCHEDULE, total);
        if (pick < fibers && priorityChoice.prioritized(fiberSteps)) {
            runFiber(removeReady(priorityChoice.highestPriority(ready, this::isEligible)));
            return Action.FIBER;
        }
        if (pick < fibers) {
            Ready next = null;
            for (int i = 0, seen = 0; i < ready.size(); i++) {
                if (isEligible(ready.get(i)) && seen++ == pick) {
                    next = removeReady(i);
                    break;
                }
            }
            runFiber(next);
            return Action.FIBER;
        }
        pick -= fibers;
        if (pick < actions) {
            for (int at = 0; at < slots.liveCount(); at++) {
                int index = slots.live(at);
                int offered = offers[index];
                if (offered == 0) {
                    continue;
                }
                Worker worker = workers.get(index);
                if ((offered & NEXT_HALF) != 0 && pick-- == 0) {
                    int half = Math.max(0, turnStep[index]);
                    serviceSteps++;
                    idleHalfZeroNanos[index] = NO_IDLE_HALF_ZERO;
                    EngineHooks.serviceHalf(worker, half);
                    if (half + 1 == EngineHooks.SERVICE_HALVES) {
                        serviceTurns++;
                        turnStep[index] = -1;
                        endFiberPhase(index);
                    } else {
                        turnStep[index] = half + 1;
                    }
                    return Action.SERVICE;
                }
                if ((offered & FROM_HALF_ONE) != 0 && pick-- == 0) {
                    serviceSteps++;
                    long halfZeroNanos = idleHalfZeroNanos[index];
                    idleHalfZeroNanos[index] = NO_IDLE_HALF_ZERO;
                    EngineHooks.serviceTurnFromHalfOne(worker, halfZeroNanos);
                    serviceTurns++;
                    endFiberPhase(index);
                    return Action.SERVICE;
                }
            }
            throw new AssertionError("no worker for pick " + pick);
        }
        assert slipTo > clock.nowNanos() : "a clock slip to " + slipTo + " at " + clock.nowNanos();
        clockSlips++;
        auditor.recordU64(AuditKind.CLOCK_SLIP, slipTo);
        clock.advanceTo(slipTo);
        return Action.SLIP;
    }

    /**
     * Where the clock may jump while work is runnable: the next ring event or timer (both worked out by the step
     * already), when it is in the future, no further than {@link #slipWindowNanos} from now (a worker thread busy or
     * descheduled for as long as one ring request takes) and within {@code limit}; {@link Long#MIN_VALUE} for none.
     */
    private long slipTarget(long limit, long nextRingEvent, long nextDeadline) {
        long now = clock.nowNanos();
        long next = Math.min(nextRingEvent, nextDeadline);
        if (next <= now || next > limit || next - now > slipWindowNanos) {
            return Long.MIN_VALUE;
        }
        return next;
    }

    private void runFiber(Ready next) {
        fiberSteps++;
        lastFiber = next.fiber();
        beforeFiberStep.accept(next.fiber());
        // The worker alone: the step's number would be the count of fiber.run events before it, which the chain has.
        auditor.recordU64(AuditKind.FIBER_RUN, next.worker().index());
        next.continuation().run();
        priorityChoice.afterFiberStep(next.fiber(), fiberSteps);
    }

    /**
     * Whether a service turn of {@code worker} would do anything now: messages, deferred callbacks or queued
     * requests, a due timer, a wake-up (a permit released for it), staged entries or a due completion. A turn that
     * would do nothing is skipped, which saves its audit events; it changes nothing else.
     */
    private boolean needsService(Worker worker, int slot) {
        return needsService(worker, rings[slot], rings[slot].nextEventNanos(), globalDeadline(slot));
    }

    /**
     * {@link #needsService(Worker, int)} with the worker's ring's next event and its earliest timer deadline (in
     * the simulation's time) already known.
     */
    private boolean needsService(Worker worker, SimRing ring, long ringNextEventNanos, long deadlineNanos) {
        long now = clock.nowNanos();
        return worker.hasReadyWork() || deadlineNanos <= now || ring.wakeRequested() || ring.staged() > 0
                || ringNextEventNanos <= now;
    }
}
