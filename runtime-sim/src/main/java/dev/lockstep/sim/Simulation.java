package dev.lockstep.sim;

import dev.lockstep.ClosedException;
import dev.lockstep.Handle;
import dev.lockstep.Task;
import dev.lockstep.engine.Engine;
import dev.lockstep.engine.FiberScheduler;
import dev.lockstep.engine.Fibers;
import dev.lockstep.engine.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

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
 * After every step the fiber that ran is inspected: in a timed park ({@code Thread.sleep}), blocked on a monitor
 * another fiber holds across an await, or parked in JDK I/O (a real socket), it would be resumed by a JDK
 * thread at a moment the operating system chooses, so the run fails at once, deterministically. A continuation
 * scheduled from any foreign thread is refused as well (the backstop for every other case). One case escapes
 * both: a timed park so short (a millisecond or less, on a loaded machine) that the JDK's timer ends it before
 * the fiber has unmounted looks like a yield; comparing the digests of two runs of the seed catches it.
 *
 * <p>Confined to the thread that calls {@link #run}; only the scheduler callback and {@link SimRing#wake()} may
 * be called from other threads.
 */
final class Simulation {
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
    /** How many leaked resources a failure message names; {@link SimRunner#leaks()} has them all. */
    private static final int LEAKS_LISTED = 8;
    /** What the kernel held before the run began: a leak is whatever the run holds at its end beyond this. */
    private final List<String> heldAtStart;
    /** What the run held at its end beyond {@link #heldAtStart}; empty until it ended. */
    private List<String> leaks = List.of();
    private final long startNanos;
    private final long startEvents;
    private CrashPolicy crashPolicy;
    private Engine engine;
    private Thread thread;
    private boolean running;
    private boolean recoverMode;
    private boolean crashed;
    private boolean rootDoneAtCrash;
    private Checkpoint checkpoint;
    private String crashReason;
    /** A leak seen on a foreign thread; guarded by itself. */
    private final String[] foreignLeak = new String[1];
    private final List<Worker> workers = new ArrayList<>();
    private Scheduler scheduler;

    private Simulation(SimConfig config, SimConfig origin, int restarts, Generator generator, Auditor auditor,
            long clockNanos, StorageImage storage) {
        this.config = config;
        this.origin = origin;
        this.restarts = restarts;
        this.generator = generator;
        this.auditor = auditor;
        this.startEvents = auditor.events();
        generator.setObserver(auditor.drawRecorder());
        this.clock = new SimClock(clockNanos);
        this.startNanos = clockNanos;
        // The runner's own start-up (the storage hold and its sync) is not faulted: faults start with the task.
        this.files = storage == null ? new SimFileSystem(generator, auditor, StorageFaults.NONE)
                : new SimFileSystem(generator, auditor, StorageFaults.NONE, storage);
        this.network = new SimNetwork(generator, auditor, clock, config.network());
        this.kernel = SimKernel.builder(generator, auditor, clock)
                .fileSystem(files)
                .network(network)
                .behavior(config.kernelBehavior())
                .workerHosts()
                .build();
        this.kernel.simulation = this;
        this.heldAtStart = kernel.heldResources();
        this.crashPolicy = config.crashPolicy();
        this.control = new SimControl(this);
    }

    /** A fresh run of {@code config}: an empty disk, the clock at the configured start. */
    static Simulation fresh(SimConfig config) {
        return new Simulation(config, config, 0, new Generator(config.seed()), new Auditor(), config.startNanos(),
                null);
    }

    /** A run that resumes from a crash. */
    static Simulation resumed(Checkpoint checkpoint) {
        return new Simulation(checkpoint.config(), checkpoint.origin(), checkpoint.restarts(),
                Generator.fromState(checkpoint.generatorState()), Auditor.fromState(checkpoint.auditorState()),
                checkpoint.clockNanos(), checkpoint.storage());
    }

    SimConfig config() {
        return config;
    }

    List<String> leaks() {
        return List.copyOf(leaks);
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
        return crashPolicy;
    }

    void crashPolicy(CrashPolicy policy) {
        this.crashPolicy = java.util.Objects.requireNonNull(policy, "policy");
        auditor.record("sim.crashPolicy", Auditor.utf8(policy.name()));
    }

    Checkpoint checkpoint() {
        return checkpoint;
    }

    /** The configuration in force now: the run's, with what {@link SimControl} changed. */
    SimConfig currentConfig() {
        return config.toBuilder().storageFaults(files.faults()).network(network.config()).crashPolicy(crashPolicy)
                .build();
    }

    SimStats stats() {
        return new SimStats(scheduler == null ? 0 : scheduler.fiberSteps(), kernel.ringCompletions,
                kernel.systemCalls, auditor.events() - startEvents, clock.nowNanos() - startNanos);
    }

    /** The line that reruns this run: the first run's configuration, and which run of the chain this is. */
    String replayLine() {
        if (restarts == 0) {
            return config.replayLine();
        }
        return "replay: run " + (restarts + 1) + " of the startAndRecover loop over SimRunner.of(" + origin.toJava()
                + "), each run after the first built with SimRunner.from(the previous run's checkpoint)  [seed "
                + origin.seed() + ", config " + origin.configHash() + "]";
    }

    /** Whether the calling code runs in this simulation: a fiber of its engine, or its own thread. */
    boolean isOnSimulation() {
        Worker worker = Worker.current();
        if (worker != null) {
            return worker.engine() == engine;
        }
        return Thread.currentThread() == thread;
    }

    /** Fails loudly when simulation state is touched from another thread, and records the leak. */
    void checkConfined(String what) {
        if (running && !isOnSimulation()) {
            String message = what + " was called from thread '" + Thread.currentThread().getName()
                    + "', outside the simulation; only its tasks may use it";
            reportForeignLeak(message);
            throw new IllegalStateException(message);
        }
    }

    private void reportForeignLeak(String message) {
        synchronized (foreignLeak) {
            if (foreignLeak[0] == null) {
                foreignLeak[0] = message;
            }
        }
    }

    // ------------------------------------------------------------------------------------------------- crash

    /**
     * The machine crashes now: unsynced data meets the crash policy, the checkpoint is taken, the disk loses
     * power for the tasks still unwinding, every connection is reset and every task is aborted.
     */
    void crashNow(String reason, Handle<?> root) {
        if (crashed) {
            return;
        }
        crashed = true;
        crashReason = reason;
        rootDoneAtCrash = root != null && root.isDone();
        auditor.record("sim.crash", Auditor.utf8(reason), Auditor.u64(clock.nowNanos()));
        CrashReport report = files.crash(crashPolicy);
        StorageImage image = files.durableImage();
        checkpoint = new Checkpoint(currentConfig(), origin, restarts + 1, generator.snapshot(), auditor.snapshot(),
                clock.nowNanos(), image, report, reason);
        files.powerOff();
        network.resetAll();
        engine.abortAll();
    }

    /** {@link SimControl#crash()}: crash from inside a task; the calling task is aborted with the rest. */
    ClosedException crashFromTask(String task) {
        if (!recoverMode) {
            throw new IllegalStateException("SimControl.crash() needs a run started with SimRunner.startAndRecover;"
                    + " SimRunner.start runs to the end");
        }
        crashNow("SimControl.crash() in task '" + task + "'", null);
        return new ClosedException("the simulated machine crashed at " + now() + " (SimControl.crash() in task '"
                + task + "')");
    }

    Instant now() {
        long nanos = clock.nowNanos();
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    // -------------------------------------------------------------------------------------------------- run

    /** What a run ended with, before the runner turns it into a value or a {@link Recovered}. */
    record Result<T>(Handle<T> root, Engine engine, boolean crashed, boolean rootDoneAtCrash, String crashReason,
            Instant crashedAt) {
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
        Thread simThread = thread;
        FiberScheduler fiberScheduler = (worker, fiber, continuation) -> {
            Thread caller = Thread.currentThread();
            boolean ours = caller == simThread
                    || (caller.isVirtual() && Fibers.current() != null
                        && Fibers.current().home().engine() == engine);
            if (!ours) {
                reportForeignLeak("a fiber of worker " + worker.index() + " was resumed from thread '"
                        + caller.getName() + "': " + likelyCause(caller));
                // Queue it anyway, so the fiber is not lost while the run fails.
            }
            scheduler.add(worker, fiber, continuation);
        };
        engine = new Engine(kernel, config.workers(), config.ringEntries(), fiberScheduler, config.storageRoot());
        engine.digestSource(auditor::digest);
        int hold = -1;
        String failure = null;
        Handle<T> rootHandle = null;
        try {
            for (int i = 0; i < config.workers(); i++) {
                workers.add(engine.createWorker(i));
            }
            scheduler = new Scheduler(generator, auditor, clock, kernel, workers, config.scheduling(),
                    Math.max(1, config.kernelBehavior().maxLatencyNanos()));
            if (restarts == 0) {
                makeParents(config.storageRoot());
            }
            hold = engine.storageHold();
            files.setFaults(config.storageFaults());
            auditor.record("sim.start", Auditor.u64(config.seed()), Auditor.u32(restarts),
                    Auditor.u64(clock.nowNanos()), Auditor.utf8(config.toJava()));
            long limit = saturatingAdd(clock.nowNanos(), config.timeLimitNanos());
            long crashAt = Long.MAX_VALUE;
            if (recover && config.crashWithinNanos() > 0) {
                crashAt = saturatingAdd(clock.nowNanos(),
                        generator.nextLongBetween(Site.CRASH_POINT, 0, config.crashWithinNanos()));
            }
            running = true;
            rootHandle = engine.startRoot(root);
            failure = loop(rootHandle, limit, crashAt);
        } finally {
            running = false;
            for (Worker worker : workers) {
                // Only this worker's ring must progress: jump to its next completion, not to another ring's.
                SimRing ring = (SimRing) worker.ring();
                worker.close(() -> {
                    if (ring.staged() > 0) {
                        return; // the next service turn submits them
                    }
                    long event = ring.nextEventNanos();
                    if (event == Long.MAX_VALUE) {
                        throw new IllegalStateException("worker " + worker.index() + " cannot retire: requests in"
                                + " flight that can never complete: " + ring.describeInFlight() + "\n"
                                + replayLine());
                    }
                    clock.advanceTo(Math.max(clock.nowNanos(), event));
                });
            }
            engine.releaseStorageHold(hold);
        }
        String leaked = leakReport();
        // A runtime failure (a waker callback threw, a ring failed) is the run's verdict: what its aborted tasks
        // left open is listed by SimRunner.leaks() but does not replace the failure the user must see.
        if (leaked != null && config.failOnLeaks() && engine.failure() == null) {
            failure = failure == null ? leaked : failure + "; and " + leaked;
        }
        if (failure != null) {
            throw new SimulationFailure(failure + " (at " + now() + ", after " + scheduler.fiberSteps() + " steps)",
                    origin, replayLine(), caller());
        }
        return new Result<>(rootHandle, engine, crashed, rootDoneAtCrash, crashReason,
                checkpoint == null ? null : checkpoint.crashedAt());
    }

    private String loop(Handle<?> rootHandle, long limit, long crashAt) {
        boolean shuttingDown = false;
        String failure = null;
        while (true) {
            synchronized (foreignLeak) {
                if (foreignLeak[0] != null && failure == null) {
                    failure = "determinism leak: " + foreignLeak[0];
                    engine.abortAll();
                    shuttingDown = true;
                }
            }
            if (!shuttingDown && (crashed || rootHandle.isDone() || engine.failure() != null)) {
                if (recoverMode && !crashed) {
                    crashNow(rootHandle.isDone() ? "the root task finished; the machine then lost power"
                            : "the runtime failed: " + engine.failure(), rootHandle);
                }
                engine.abortAll();
                shuttingDown = true;
            }
            Scheduler.Action action = scheduler.step(shuttingDown ? Long.MIN_VALUE : Math.min(limit, crashAt));
            if (action == Scheduler.Action.FIBER) {
                String leak = inspect(scheduler.lastFiber());
                if (leak != null && failure == null) {
                    failure = "determinism leak: " + leak;
                    engine.abortAll();
                    shuttingDown = true;
                }
                continue;
            }
            if (action != Scheduler.Action.NOTHING || scheduler.workersBusy()) {
                continue;
            }
            if (shuttingDown && engine.liveFibers() == 0) {
                return failure;
            }
            String outside = engine.fiberWaitingOutsideLockstep();
            if (outside != null && failure == null) {
                // Jumping the clock now would let a JDK thread decide when this fiber resumes.
                failure = "determinism leak: " + outside;
                engine.abortAll();
                shuttingDown = true;
                continue;
            }
            long nextEvent = kernel.nextEventNanos();
            for (Worker worker : workers) {
                nextEvent = Math.min(nextEvent, worker.nextDeadline());
            }
            if (!shuttingDown && nextEvent > crashAt) {
                clock.advanceTo(Math.max(clock.nowNanos(), crashAt));
                crashNow("the seeded crash point at " + now() + " came", rootHandle);
                continue;
            }
            if (nextEvent == Long.MAX_VALUE) {
                if (shuttingDown) {
                    // Aborted fibers blocked outside Lockstep can never resume; leave them.
                    return failure;
                }
                failure = "stalled: no fiber can run and nothing is scheduled (" + engine.liveFibers()
                        + " fibers waiting: " + describeWaitingFibers() + ")" + describeRings();
                engine.abortAll();
                shuttingDown = true;
                continue;
            }
            if (nextEvent > limit && !shuttingDown) {
                failure = "timed out: the simulated time limit of " + Duration.ofNanos(config.timeLimitNanos())
                        + " was reached";
                engine.abortAll();
                shuttingDown = true;
                continue;
            }
            clock.advanceTo(Math.max(clock.nowNanos(), nextEvent));
        }
    }

    /** Creates the storage root's missing ancestors, durably, so any absolute root works on a fresh disk. */
    private void makeParents(String root) {
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

    /**
     * The resources the run holds at its end and did not start with (fds, rings, ring buffers, live fibers), each
     * named with the source line that created it; null if none. However the run ended — the root finished, the
     * machine crashed, the run failed — its tasks have had their chance to close what they opened.
     */
    private String leakReport() {
        List<String> held = new ArrayList<>(kernel.heldResources());
        leaks = held;
        held.removeAll(heldAtStart);
        kernel.freeLeakedMemory();
        for (dev.lockstep.engine.Fiber live : engine.fibers()) {
            Thread fiber = live.thread();
            if (fiber != null && fiber.getState() != Thread.State.TERMINATED) {
                held.add("fiber '" + fiber.getName() + "', still running" + where(fiber));
            }
        }
        if (held.isEmpty()) {
            return null;
        }
        // The first few name the culprit; a store that forgot to close thirty segments needs no thirty lines.
        String listed = String.join("; ", held.subList(0, Math.min(held.size(), LEAKS_LISTED)));
        if (held.size() > LEAKS_LISTED) {
            listed += "; and " + (held.size() - LEAKS_LISTED) + " more (SimRunner.leaks() lists every one)";
        }
        return "resource leak: the run ended holding " + held.size() + " resource" + (held.size() == 1 ? "" : "s")
                + " it did not start with: " + listed;
    }

    private static long saturatingAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    // ------------------------------------------------------------------------------------------------- leaks

    /** What the fiber that just ran waits on, if it waits outside Lockstep; null if it is fine. */
    private String inspect(dev.lockstep.engine.Fiber ran) {
        Thread fiber = ran.thread();
        if (fiber == null) {
            return null;
        }
        return switch (fiber.getState()) {
            case TERMINATED -> null;
            case TIMED_WAITING -> "fiber '" + fiber.getName() + "' is in a timed park (Thread.sleep,"
                    + " LockSupport.parkNanos, a timed wait or Future.get with a timeout) that wall-clock time would"
                    + " end" + where(fiber) + "; use ctx.sleep or ctx.timeout";
            case BLOCKED -> "fiber '" + fiber.getName() + "' is blocked on a contended monitor (synchronized) that"
                    + " another fiber holds across an await" + where(fiber) + "; the JDK's unblocker thread, not the"
                    + " simulator, would resume it: do not hold monitors across awaits";
            case WAITING -> LockSupport.getBlocker(fiber) == null ? realIo(fiber) : null;
            default -> null;
        };
    }

    /** Requests in flight that wait for something that may never come (a receive, an accept), by ring. */
    private String describeRings() {
        StringBuilder rings = new StringBuilder();
        for (SimRing ring : kernel.rings()) {
            List<String> inFlight = ring.describeInFlight();
            if (!inFlight.isEmpty()) {
                rings.append(rings.isEmpty() ? "; in flight: " : "; ").append("ring ").append(ring.id()).append(' ')
                        .append(inFlight);
            }
        }
        return rings.toString();
    }

    /** Every fiber still alive and where it waits, sorted by name. */
    private String describeWaitingFibers() {
        List<String> waiting = new ArrayList<>();
        for (dev.lockstep.engine.Fiber live : engine.fibers()) {
            Thread fiber = live.thread();
            if (fiber != null && fiber.getState() != Thread.State.TERMINATED) {
                String at = where(fiber.getStackTrace());
                waiting.add(fiber.getName().replaceFirst("^lockstep-(\\d+)-", "worker $1 '") + "'"
                        + (at.isEmpty() ? "" : at.substring(1)));
            }
        }
        waiting.sort(null);
        return String.join("; ", waiting);
    }

    /** A fiber parked with no blocker: Lockstep always parks with one, JDK I/O never does. */
    private static String realIo(Thread fiber) {
        StackTraceElement[] stack = fiber.getStackTrace();
        for (StackTraceElement frame : stack) {
            String type = frame.getClassName();
            if (type.startsWith("sun.nio.ch.") || type.startsWith("java.net.")
                    || type.startsWith("java.nio.channels.")) {
                return "fiber '" + fiber.getName() + "' waits for real I/O (a java.net socket or an NIO channel) in "
                        + frame + where(stack) + ": the operating system, not the simulator, would complete it;"
                        + " use ctx's Network and Storage";
            }
        }
        return null;
    }

    private static String where(Thread fiber) {
        return where(fiber.getStackTrace());
    }

    /** The first frame of user code in a parked fiber's stack. */
    private static String where(StackTraceElement[] stack) {
        for (StackTraceElement frame : stack) {
            String type = frame.getClassName();
            if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")
                    && !type.startsWith("dev.lockstep.engine.")) {
                return ", at " + frame;
            }
        }
        return "";
    }

    private static String likelyCause(Thread caller) {
        String name = caller.getName();
        if (name.contains("unparker")) {
            return "a timed park (Thread.sleep, LockSupport.parkNanos, a timed wait or Future.get with a timeout)"
                    + " woke on wall-clock time; use ctx.sleep or ctx.timeout";
        }
        if (name.contains("unblocker")) {
            return "a contended monitor (synchronized) held across an await was released by another fiber; do not"
                    + " hold monitors across awaits";
        }
        if (name.contains("Poller") || name.contains("poller")) {
            return "blocking JDK I/O (a real socket or file channel) completed outside the simulator; use"
                    + " ctx's Network and Storage";
        }
        return "something outside the simulator (another thread, a JDK timer, real I/O) unparked it";
    }

    /** The user's call site of the runner, for the replay line: the first frame outside Lockstep and the JDK. */
    private static String caller() {
        for (StackTraceElement frame : new Throwable().getStackTrace()) {
            String type = frame.getClassName();
            boolean simulator = type.equals(Simulation.class.getName()) || type.equals(SimRunner.class.getName())
                    || type.startsWith(Simulation.class.getName() + "$")
                    || type.startsWith(SimRunner.class.getName() + "$");
            if (!simulator && !type.startsWith("dev.lockstep.engine.") && !type.startsWith("java.")
                    && !type.startsWith("jdk.")) {
                return frame.toString();
            }
        }
        return null;
    }

}
