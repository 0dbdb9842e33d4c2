package dev.lockstep.sim;

import dev.lockstep.ClosedException;
import dev.lockstep.Handle;
import dev.lockstep.Task;
import dev.lockstep.engine.Engine;
import dev.lockstep.engine.task.FiberScheduler;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.SearchState;
import dev.lockstep.sim.audit.Site;
import dev.lockstep.sim.os.OwningRun;
import dev.lockstep.sim.os.SimClock;
import dev.lockstep.sim.os.SimFileSystem;
import dev.lockstep.sim.os.SimKernel;
import dev.lockstep.sim.os.SimNetwork;
import dev.lockstep.sim.os.SimRing;
import dev.lockstep.sim.sched.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One simulated run: the generator, auditor, clock, file system, network and kernel it owns, the engine over
 * them, and the loop that drives every fiber on the calling thread. Made by {@link SimRunner}, used once.
 *
 * <h2>The loop</h2>
 * Each step the {@link Scheduler} runs one thing: in {@link Scheduling#INTERLEAVED} mode (the default with more
 * than one worker) a fiber continuation, half of a worker's service turn, or a slip of the clock, chosen by the
 * {@link Generator}; in {@link Scheduling#SERVICE_FIRST} mode a whole service turn of every worker with work, then
 * one fiber continuation. When nothing can run, the clock jumps to the earliest timer or kernel event. Nothing
 * runnable and nothing scheduled is a <em>stall</em>; passing the simulated time limit is a <em>timeout</em>.
 *
 * <h2>Determinism leaks</h2>
 * After every step the fiber that ran is settled ({@link StepSettler}; {@link LeakWatch} says what is caught and
 * how): a thread it created, work it handed to a ForkJoinPool, a timed park, a monitor another fiber holds across
 * an await, JDK I/O, work handed to the common pool (caught in the carrier's own queue, see {@link SimCarrier}),
 * all fail the run with the same message on every run of the seed. A fiber held up by a lock the JDK holds inside
 * one of its own calls (two simulations in one JVM printing to one stream) is waited for and run on within its step, and a
 * late, stray unpark such a lock leaves on a fiber parked in Lockstep is held until Lockstep wakes the fiber, so
 * simulations side by side do not see each other. A continuation scheduled from any other foreign thread at
 * another moment is refused as well (the backstop), and an operation or task handle polled, awaited or closed
 * from a thread outside the simulation is refused at the call. One case escapes: a timed park so short (a
 * millisecond or less, on a loaded machine) that the JDK's timer ends it before the fiber has unmounted looks
 * like a yield; comparing the digests of two runs of the seed catches it.
 *
 * <p>Confined to the thread that calls {@link #run} ({@link SimRunner} runs it on the calling thread's
 * {@link SimCarrier}); only the scheduler callback, {@link #interrupt()}, {@link #stuckAt()} and
 * {@link SimRing#wake()} may be called from other threads.
 *
 * <p>Its parts, package-private beside it: {@link StepSettler} settles each fiber step (the scheduler callback,
 * the hand-off of continuations from other threads, the held stray continuations); {@link RunCrash} is the
 * machine's crash and the checkpoint it takes; {@link RunLeaks} names what the run holds at its end and what waits
 * in a stall; {@link RunConfinement} says which threads may touch the run and keeps the first determinism leak
 * another thread caused; {@link RunTrace} is what a traced run keeps beside its events; {@link RunRecord} is what
 * the run reports about itself (digest, counts, CPU time, replay line, the user's call site); {@link RunVerdict} is
 * its first failure and what it ends with (the failure, what it left open, an interrupt). This class sets the
 * run up, runs the loop and answers for the run's identity: which thread and engines are the run's.
 */
final class Simulation implements OwningRun {
    private final SimConfig config;
    private final SimConfig origin;
    private final int restarts;
    final Generator generator;
    final Auditor auditor;
    final SimClock clock;
    final SimFileSystem files;
    final SimNetwork network;
    final SimKernel kernel;
    final SimControl control;
    /** The run's fault points, assertions and search signals. */
    final SearchState search;
    /** What the run started with, and what it holds or waits on beyond that at its end or in a stall. */
    private final RunLeaks leaks;
    /** The run's digest, counts, CPU time and replay line. */
    final RunRecord record;
    private Engine engine;
    private Thread thread;
    private boolean running;
    private boolean recoverMode;
    /** The crash policy in force, and the machine's crash when it came. */
    private final RunCrash crash;
    /** Which threads may touch the run, and the first determinism leak a thread outside it caused. */
    final RunConfinement confinement = new RunConfinement(this);
    private final List<Worker> workers = new ArrayList<>();
    private Scheduler scheduler;
    /** Schedules every fiber of the run, the cluster nodes' included; set when the run starts. */
    private FiberScheduler fiberScheduler;
    /** The run's {@link SimCluster}, made by the first {@link SimControl#cluster()}; null without nodes. */
    private SimCluster cluster;
    /** Set by {@link #interrupt()} from the caller's thread; read by the loop before every step. */
    private volatile boolean interruptRequested;
    /** Whether the run ended because it was interrupted. Simulator thread only. */
    private boolean interrupted;
    /** The carrier the run is on, whose queue catches work handed to the common pool; null if run elsewhere. */
    private SimCarrier carrier;
    /** The run's first failure, and at its end what it throws. */
    private final RunVerdict verdict;
    private boolean shuttingDown;
    /** Settles each fiber step: the scheduler callback, the hand-off and the held stray continuations. */
    private final StepSettler steps = new StepSettler(this);

    private Simulation(SimConfig config, SimConfig origin, int restarts, Generator generator, Auditor auditor,
            long clockNanos, StorageImage storage) {
        this.config = config;
        this.origin = origin;
        this.restarts = restarts;
        this.generator = generator;
        this.auditor = auditor;
        this.record = new RunRecord(this, clockNanos);
        generator.setObserver(auditor.drawRecorder());
        this.clock = new SimClock(clockNanos);
        // The runner's own start-up (the storage hold and its sync) is not faulted: faults start with the task.
        this.files = storage == null ? new SimFileSystem(generator, auditor, StorageFaults.NONE)
                : new SimFileSystem(generator, auditor, StorageFaults.NONE, storage);
        this.network = new SimNetwork(generator, auditor, clock, config.network());
        this.kernel = SimKernel.builder(generator, auditor, clock)
                .fileSystem(files)
                .network(network)
                .behavior(config.kernelBehavior())
                .openFileLimit(config.openFileLimit())
                .workerHosts()
                .build();
        this.kernel.simulation = this;
        this.leaks = new RunLeaks(this);
        this.crash = new RunCrash(this, config.crashPolicy());
        this.verdict = new RunVerdict(this, crash);
        this.control = new SimControl(this);
        this.search = new SearchState(generator, auditor, config.faultPoints());
        auditor.namedEventListener(search::onEvent);
    }

    /** A fresh run of {@code config}: an empty disk, the clock at the configured start. */
    static Simulation fresh(SimConfig config) {
        return new Simulation(config, config, 0, new Generator(config.seed(), config.decisionChain()), new Auditor(),
                config.startNanos(), null);
    }

    /** A run that resumes from a crash. */
    static Simulation resumed(Checkpoint checkpoint) {
        return new Simulation(checkpoint.config(), checkpoint.origin(), checkpoint.restarts(),
                Generator.fromState(checkpoint.generatorState(), checkpoint.config().decisionChain()),
                Auditor.fromState(checkpoint.auditorState()),
                checkpoint.clockNanos(), checkpoint.storage());
    }

    SimConfig config() {
        return config;
    }

    List<String> leaks() {
        return leaks.all();
    }

    /** See {@link SimRunner#metrics}; each node lifetime offers its engine's meters here. */
    private dev.lockstep.spi.MetricsSink metrics = dev.lockstep.spi.MetricsSink.NONE;

    void metrics(dev.lockstep.spi.MetricsSink sink) {
        metrics = sink;
    }

    dev.lockstep.spi.MetricsSink metrics() {
        return metrics;
    }

    /**
     * See {@link SimRunner#attach}; null if none. Set by the starting thread before the run is handed to its
     * carrier, which publishes it to every task of the run; never written again.
     */
    private Object attachment;

    void attach(Object value) {
        attachment = value;
    }

    Object attachment() {
        return attachment;
    }

    /** See {@link SimRunner#allowingForeignThreads()}. */
    void allowForeignThreads() {
        confinement.allowForeignThreads();
    }

    boolean foreignThreadsAllowed() {
        return confinement.foreignThreadsAllowed();
    }

    /** Keeps every audit event with the worker, fiber, time and user line it came from: see {@link RunTrace}. */
    void startTrace() {
        auditor.startTrace(new RunTrace(steps, clock));
    }

    int restarts() {
        return restarts;
    }

    Engine engine() {
        return engine;
    }

    boolean isRunning() {
        return running;
    }

    boolean recoverMode() {
        return recoverMode;
    }

    CrashPolicy crashPolicy() {
        return crash.policy();
    }

    /** See {@link RunCrash#policy(CrashPolicy)}. */
    void crashPolicy(CrashPolicy policy) {
        crash.policy(policy);
    }

    /** What the machine's crash left, to continue from; null if it did not crash. */
    Checkpoint checkpoint() {
        return crash.checkpoint();
    }

    /** The configuration the run was first built with: this one's, or the first of its startAndRecover loop. */
    SimConfig origin() {
        return origin;
    }

    /** The configuration in force now: the run's, with what {@link SimControl} changed. */
    SimConfig currentConfig() {
        return config.toBuilder().storageFaults(files.faults()).network(network.config()).crashPolicy(crash.policy())
                .build();
    }

    /** Whether the calling code runs in this simulation: a fiber of its engine, or its own thread. */
    boolean isOnSimulation() {
        Worker worker = Worker.current();
        if (worker != null) {
            return ownsEngine(worker.engine());
        }
        return Thread.currentThread() == thread;
    }

    /** Whether {@code other} is this run's engine or one of its cluster nodes'; any thread. */
    boolean ownsEngine(Engine other) {
        SimCluster nodes = cluster;
        return other == engine || (nodes != null && nodes.owns(other));
    }

    // ------------------------------------------------------------------------------------------------ nodes

    /** The run's cluster, made on first use; see {@link SimCluster}. */
    SimCluster cluster() {
        if (recoverMode) {
            throw new IllegalStateException("SimCluster needs a run of SimRunner.start: a startAndRecover run crashes"
                    + " the whole simulation, its nodes crash one by one with SimNode.crash()");
        }
        if (cluster == null) {
            cluster = new SimCluster(this);
        }
        return cluster;
    }

    /** The run's cluster if a task made one; null otherwise. */
    SimCluster clusterIfMade() {
        return cluster;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    FiberScheduler fiberScheduler() {
        return fiberScheduler;
    }

    /** Makes a node's engine part of the run: its digest is the run's, its operations confined like the run's. */
    void adopt(Engine nodeEngine) {
        nodeEngine.hooks(engineHooks);
    }

    /** What the run's engines ask of it: the run's digest, and the refusal of callers from outside the run. */
    private final dev.lockstep.engine.EngineHooks engineHooks = new dev.lockstep.engine.EngineHooks() {
        @Override
        public String digest() {
            return auditor.digest();
        }

        @Override
        public void foreignCaller(String what) {
            confinement.checkForeignCaller(what);
        }
    };

    private void abortEverything() {
        engine.abortAll();
        if (cluster != null) {
            cluster.abortAll();
        }
    }

    private int liveFibers() {
        return engine.liveFibers() + (cluster == null ? 0 : cluster.liveFibers());
    }

    private String fiberWaitingOutsideLockstep() {
        String outside = engine.fiberWaitingOutsideLockstep();
        return outside != null || cluster == null ? outside : cluster.fiberWaitingOutsideLockstep();
    }

    /** See {@link RunConfinement#checkConfined}. */
    @Override
    public void checkConfined(String what) {
        confinement.checkConfined(what);
    }

    // ------------------------------------------------------------------------------------------------- crash

    /** {@link SimControl#crash()}: see {@link RunCrash#fromTask}. */
    ClosedException crashFromTask(String task) {
        return crash.fromTask(task);
    }

    Instant now() {
        long nanos = clock.nowNanos();
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    // -------------------------------------------------------------------------------------------------- run

    /** What a run ended with, before the runner turns it into a value or a {@link Recovered}. */
    record Result<T>(Handle<T> root, Engine engine, boolean crashed, boolean rootDoneAtCrash, String crashReason,
            Instant crashedAt, SimulationFailure leakBesideRootFailure) {
    }

    /**
     * Runs {@code root} to the end.
     *
     * @param recover whether this is a {@link SimRunner#startAndRecover} run: it ends with a crash
     * @return the root's handle and how the run ended
     * @throws SimulationFailure on a stall, a timeout or a determinism leak
     */
    <T> Result<T> run(Task<T> root, boolean recover) {
        this.recoverMode = recover;
        this.thread = Thread.currentThread();
        this.carrier = SimCarrier.current();
        record.cpuStarts();
        Thread simThread = thread;
        fiberScheduler = steps.fiberScheduler(simThread);
        dev.lockstep.engine.task.JdkInternals.checkFiberStates(); // the JDK members LeakWatch reads: named if gone
        engine = new Engine(kernel, config.workers(), config.ringEntries(), fiberScheduler, config.storageRoot());
        engine.hooks(engineHooks);
        engine.receiveMemory(new dev.lockstep.engine.buffer.ReceiveMemory(config.receiveLimits()));
        // The run's meters, as runtime-uring's: reading them draws and records nothing (WorkerMetrics).
        List<dev.lockstep.spi.Meter> meters = engine.meters(java.util.Map.of());
        metrics.runStarted(meters);
        int hold = -1;
        Handle<T> rootHandle = null;
        LeakWatch.own(this);
        try {
            for (int i = 0; i < config.workers(); i++) {
                workers.add(engine.createWorker(i));
            }
            scheduler = new Scheduler(generator, auditor, clock, kernel, workers, config.scheduling(),
                    Math.max(1, config.kernelBehavior().maxLatencyNanos()), steps::beginStep, config.priorities());
            if (restarts == 0) {
                makeParents(files, config.storageRoot());
            }
            hold = engine.storageHold();
            files.setFaults(config.storageFaults());
            auditor.record("sim.start", Auditor.u64(config.seed()), Auditor.u32(restarts),
                    Auditor.u64(clock.nowNanos()), Auditor.utf8(config.toJava()));
            long limit = Math.min(saturatingAdd(clock.nowNanos(), config.timeLimitNanos()), SimClock.LAST_NANOS);
            long crashAt = Long.MAX_VALUE;
            if (recover && config.crashWithinNanos() > 0) {
                crashAt = saturatingAdd(clock.nowNanos(),
                        generator.nextLongBetween(Site.CRASH_POINT, 0, config.crashWithinNanos()));
            }
            running = true;
            rootHandle = engine.startRoot(root);
            loop(rootHandle, limit, crashAt);
        } finally {
            running = false;
            LeakWatch.own(null);
            for (Worker worker : workers) {
                worker.close(closingIdle(worker));
            }
            engine.endRun();
            metrics.runEnded(meters);
            engine.releaseStorageHold(hold);
            if (cluster != null) {
                cluster.retireAll(this::closingIdle);
            }
            // The run records no more payloads: its remembered blocks serve the next run (no digest changes).
            auditor.releaseRememberedBlocks();
        }
        record.cpuEnds();
        SimulationFailure leakBesideRootFailure = verdict.end(leaks.report(), rootHandle, interrupted);
        Checkpoint checkpoint = crash.checkpoint();
        return new Result<>(rootHandle, engine, crash.crashed(), crash.rootDoneAtCrash(), crash.reason(),
                checkpoint == null ? null : checkpoint.crashedAt(), leakBesideRootFailure);
    }

    /**
     * What moves time while a worker retires at the end of the run: only this worker's ring must progress, so the
     * clock jumps to its next completion, not to another ring's.
     */
    private Runnable closingIdle(Worker worker) {
        SimRing ring = (SimRing) worker.ring();
        return () -> {
            if (ring.staged() > 0) {
                return; // the next service turn submits them
            }
            long event = ring.nextEventNanos();
            if (event == Long.MAX_VALUE) {
                throw new IllegalStateException("worker " + worker.index() + " cannot retire: requests in"
                        + " flight that can never complete: " + ring.describeInFlight() + "\n"
                        + record.replayLine());
            }
            clock.advanceTo(Math.max(clock.nowNanos(), event));
        };
    }

    private void loop(Handle<?> rootHandle, long limit, long crashAt) {
        while (true) {
            if (interruptRequested && !interrupted) {
                interrupted = true;
                fail("interrupted: " + INTERRUPTED);
            }
            String foreign = confinement.firstLeak();
            if (foreign != null && !verdict.failed()) {
                // Once: fail() aborts every task, and aborting again on every turn would wake a fiber stuck in JDK
                // I/O over and over (it parks again at once), so the loop never saw an idle step and spun.
                fail("determinism leak: " + foreign);
            }
            if (cluster != null) {
                String nodeFailure = cluster.settle();
                if (nodeFailure != null && !shuttingDown) {
                    fail(nodeFailure);
                }
            }
            if (!shuttingDown && (crash.crashed() || rootHandle.isDone() || engine.failure() != null)) {
                if (recoverMode && !crash.crashed()) {
                    crash.now(rootHandle.isDone() ? "the root task finished; the machine then lost power"
                            : "the runtime failed: " + engine.failure(), rootHandle);
                }
                abortEverything();
                shuttingDown = true;
            }
            Scheduler.Action action = scheduler.step(shuttingDown ? Long.MIN_VALUE : Math.min(limit, crashAt));
            if (action == Scheduler.Action.FIBER) {
                String leak = steps.settle(scheduler.lastFiber(), carrier);
                if (auditor.trace() != null) {
                    RunTrace.recordParked(auditor, scheduler.lastFiber());
                }
                if (leak != null) {
                    fail("determinism leak: " + leak);
                }
                continue;
            }
            if (action != Scheduler.Action.NOTHING || scheduler.workersBusy()) {
                continue;
            }
            if (shuttingDown && liveFibers() == 0) {
                return;
            }
            String outside = fiberWaitingOutsideLockstep();
            if (outside != null && !verdict.failed()) {
                // Jumping the clock now would let a JDK thread decide when this fiber resumes.
                fail("determinism leak: " + outside);
                continue;
            }
            long nextEvent = Math.min(kernel.nextEventNanos(), scheduler.nextDeadlineNanos());
            if (cluster != null) {
                nextEvent = Math.min(nextEvent, scheduler.nextNodeRingEventNanos());
            }
            if (!shuttingDown && nextEvent > crashAt) {
                clock.advanceTo(Math.max(clock.nowNanos(), crashAt));
                crash.now("the seeded crash point at " + now() + " came", rootHandle);
                continue;
            }
            if (nextEvent == Long.MAX_VALUE) {
                if (shuttingDown) {
                    // Aborted fibers blocked outside Lockstep can never resume; leave them.
                    return;
                }
                fail("stalled: no fiber can run and nothing is scheduled (" + liveFibers()
                        + " fibers waiting: " + leaks.describeWaitingFibers() + ")" + leaks.describeRings());
                continue;
            }
            if (nextEvent > limit && !shuttingDown) {
                fail(limit == SimClock.LAST_NANOS ? "timed out: simulated time would pass "
                        + Instant.EPOCH.plusNanos(SimClock.LAST_NANOS) + ", the latest a run reaches"
                        + " (SimClock.LAST_NANOS), before the time limit of " + Duration.ofNanos(config.timeLimitNanos())
                        + " was reached"
                        : "timed out: the simulated time limit of " + Duration.ofNanos(config.timeLimitNanos())
                        + " was reached");
                continue;
            }
            clock.advanceTo(Math.max(clock.nowNanos(), nextEvent));
        }
    }

    /**
     * The first failure wins, with the time and step it happened at (what happens while the run shuts down does
     * not change the verdict); every task is aborted.
     */
    private void fail(String message) {
        if (!verdict.failed()) {
            verdict.first(message + " (at " + now() + ", after " + scheduler.fiberSteps() + " steps)");
            if (message.startsWith("determinism leak")) {
                // What the run does after it depends on a thread outside the simulation (a JDK timer ending a
                // sleep while the run shuts down, or not): the run's record is what came before.
                record.freezeAtLeak();
            }
        }
        abortEverything();
        shuttingDown = true;
    }

    // ------------------------------------------------------------------------------------------ other threads

    /** What {@code start} throws, as an {@link dev.lockstep.AbortedException}, when its caller is interrupted. */
    static final String INTERRUPTED = "Runner.start was interrupted: every task was aborted";

    /**
     * The caller's thread was interrupted: the loop aborts every task before its next step and the run ends with
     * {@link dev.lockstep.AbortedException}. Any thread.
     */
    void interrupt() {
        interruptRequested = true;
    }

    /** Whether the run has its verdict (its first failure): it only shuts down from then on. Simulator thread. */
    boolean failed() {
        return verdict.failed();
    }

    /** Whether {@link #interrupt()} was called: long real-time waits of the simulator's thread give up then. */
    boolean interruptRequested() {
        return interruptRequested;
    }

    /** Where the run is stuck, for a caller that gave up waiting: the fiber whose step never ended. Any thread. */
    String stuckAt() {
        return steps.stuckAt();
    }

    /** A thread was created by this simulation's thread or one of its fibers: see {@link LeakWatch}. */
    void threadCreatedInStep(String message) {
        steps.threadCreatedInStep(message);
    }

    /** Creates the storage root's missing ancestors, durably, so any absolute root works on a fresh disk. */
    static void makeParents(SimFileSystem files, String root) {
        String[] parts = root.split("/");
        StringBuilder path = new StringBuilder();
        boolean made = false;
        for (int i = 0; i < parts.length - 1; i++) {
            if (parts[i].isEmpty()) {
                continue;
            }
            path.append('/').append(parts[i]);
            if (!files.isDirectory(path.toString())) {
                files.mkdir(path.toString());
                made = true;
            }
        }
        if (made && files.syncAll() != 0) {
            throw new IllegalStateException("cannot sync the simulated disk while creating " + path);
        }
    }

    private static long saturatingAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
