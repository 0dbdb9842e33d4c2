package dev.lockstep.sim;

import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.ExitedException;
import dev.lockstep.Runner;
import dev.lockstep.Task;
import dev.lockstep.engine.Engine;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.kernel.Kernel;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.os.SimKernel;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * The seeded simulator: every simulated worker and every fiber on one thread, the next runnable fiber picked by
 * the seed, time jumping to the next event when nothing can run. That thread is a {@link SimCarrier}, the calling
 * thread's own, kept idle between its runs while nothing a run left on it could change the next; the calling
 * thread waits for it, and an interrupt of the calling thread aborts the run ({@link dev.lockstep.AbortedException},
 * as {@link Runner} says).
 *
 * <h2>Running</h2>
 * {@link #start} runs a root task to the end, as every {@link Runner} does. {@link #startAndRecover} runs it
 * until the simulated machine crashes — when the task calls {@link SimControl#crash()}, at a seeded point
 * ({@link SimConfig#crashWithinNanos()}), or when the task finishes — and returns the outcome with a
 * {@link Checkpoint}; {@link #from(Checkpoint)} continues from it: loops of unclean restarts.
 *
 * <h2>Failures</h2>
 * A run that stalls (nothing runnable, nothing scheduled), passes its simulated time limit, or leaks
 * nondeterminism ({@code Thread.sleep}, a monitor held across an await and contended, a real socket, a fiber
 * resumed from a foreign thread) fails with {@link SimulationFailure}; its message ends with the replay line. A
 * root task's own exception is rethrown unchanged, with the replay line attached as a suppressed
 * {@link ReplayNote}, so the printed stack trace ends with it. The task's exception wins over what the run left
 * open: with {@link SimConfig#failOnLeaks()}, a root that throws while holding resources has its exception
 * rethrown (or, from {@link #startAndRecover}, reported as {@link Outcome.Failed}) with the
 * {@link SimulationFailure} naming each resource attached to it as suppressed; a root that returns normally while
 * holding them fails with that {@link SimulationFailure}.
 *
 * <h2>Inside a run</h2>
 * {@link #control(Context)} gives a task the {@link SimControl}: partitions, faults, crashes, a
 * ticker on simulated time ({@link #ticker(Context)}) and seeded randomness.
 */
public final class SimRunner implements Runner {
    /**
     * The flag that opens the JDK's {@code java.lang} to Lockstep's fibers, {@value}; without it a run fails at its
     * start with an {@link IllegalStateException} whose message names it.
     */
    public static final String OPENS_FLAG = dev.lockstep.engine.task.JdkInternals.REQUIRED_FLAG;
    /** Every flag a JVM that runs the simulator on the class path needs, {@value}. */
    public static final String REQUIRED_JVM_FLAGS = "--enable-native-access=ALL-UNNAMED " + OPENS_FLAG;
    private final SimConfig config;
    private final Checkpoint resume;
    private final AtomicBoolean used = new AtomicBoolean();
    private Simulation last;
    /** Whether the run keeps every audit event with its circumstances (see {@link DeterminismCheck}). */
    private boolean tracing;
    /** See {@link #allowingForeignThreads()}. */
    private boolean foreignThreads;
    /** See {@link #metrics}. */
    private dev.lockstep.spi.MetricsSink metrics = dev.lockstep.spi.MetricsSink.NONE;
    /** See {@link #replayedBy}; null for the simulator's own line. */
    private String replayedBy;
    /** See {@link #attach}; null if none. */
    private Object attachment;

    private SimRunner(SimConfig config, Checkpoint resume) {
        this.config = config;
        this.resume = resume;
    }

    /**
     * A simulator with defaults and this seed.
     *
     * @param seed the seed
     * @return the runner
     */
    public static SimRunner seeded(long seed) {
        return new SimRunner(SimConfig.builder().seed(seed).build(), null);
    }

    /**
     * A simulator with this configuration.
     *
     * @param config the configuration
     * @return the runner
     */
    public static SimRunner of(SimConfig config) {
        return new SimRunner(Objects.requireNonNull(config, "config"), null);
    }

    /**
     * A simulator that continues after a crash: the generator, clock, auditor chain, disk and fault
     * configuration of the checkpoint; nothing else (tasks, connections, partitions) survives.
     *
     * @param checkpoint from {@link Recovered#checkpoint()}
     * @return the runner
     */
    public static SimRunner from(Checkpoint checkpoint) {
        Objects.requireNonNull(checkpoint, "checkpoint");
        return new SimRunner(checkpoint.config(), checkpoint);
    }

    /**
     * The configuration.
     *
     * @return it
     */
    public SimConfig config() {
        return config;
    }

    /**
     * The digest of the run's auditor, after {@link #start} or {@link #startAndRecover} returned or threw. For a
     * recovered run it is the digest at the end of the shutdown that followed the crash; the chain the next run
     * continues is {@link Checkpoint#digest()}. For a run that failed with a determinism leak it is the digest
     * when the leak was found: what the run did after that, while it shut down, depended on a thread outside the
     * simulation (a JDK timer ending a {@code Thread.sleep}, say), so only what came before is the seed's.
     *
     * @return the hex digest
     * @throws IllegalStateException before the run
     */
    public String digest() {
        if (last == null) {
            throw new IllegalStateException("the simulator has not run yet");
        }
        return last.record.digest();
    }

    /**
     * Bytes of buffered receive memory the run (its root engine, not a {@link SimCluster}'s nodes) holds now:
     * received and not yet returned by a {@code recv}, and the arrays pending receives fill (see
     * {@link dev.lockstep.ReceiveLimits}). From a task of the run while it runs, or after it (then 0, every stream
     * being closed).
     *
     * @return bytes
     * @throws IllegalStateException before the run
     */
    public long receiveBufferBytes() {
        if (last == null || last.engine() == null) {
            throw new IllegalStateException("the simulator has not run yet");
        }
        return last.engine().receiveBufferBytes();
    }

    /**
     * What the run did: fiber steps, simulated I/O operations, audit events, simulated time; after a determinism
     * leak, up to the leak (as {@link #digest()}).
     *
     * @return the counts
     * @throws IllegalStateException before the run
     */
    public SimStats stats() {
        if (last == null) {
            throw new IllegalStateException("the simulator has not run yet");
        }
        return last.record.stats();
    }

    /**
     * What the run reached: its fault points, {@code sometimes} assertions and search signals (see {@link
     * Coverage}). For a run resumed from a checkpoint, what this run reached, not the runs before it.
     *
     * @return the coverage, the same for every run of the seed and configuration
     * @throws IllegalStateException before the run
     */
    public Coverage coverage() {
        if (last == null) {
            throw new IllegalStateException("the simulator has not run yet");
        }
        return last.search.coverage();
    }

    /**
     * The CPU time of the simulator's thread over the last run: its loop and every fiber, which all run on it (the
     * caller's thread only waits). For throughput measurements; unlike {@link #stats()} it is not the same on every
     * run of the seed.
     *
     * @return nanoseconds, or -1 where the JVM cannot measure thread CPU time
     * @throws IllegalStateException before the first run
     */
    public long simulatorCpuNanos() {
        if (last == null) {
            throw new IllegalStateException("the simulator has not run yet");
        }
        return last.record.cpuNanos();
    }

    /**
     * What the run held at its end and did not start with: each fd, ring, ring buffer and live fiber, with what
     * it is and the source line that created it. A run of a {@link SimConfig#failOnLeaks()} configuration fails
     * instead of ending with any.
     *
     * @return one line per resource, fds first; empty for a run that gave everything back
     * @throws IllegalStateException before the run
     */
    public java.util.List<String> leaks() {
        if (last == null) {
            throw new IllegalStateException("the simulator has not run yet");
        }
        return last.leaks();
    }

    /**
     * Lets the run's tasks create threads and poll, await or close operations from them: for harnesses that run
     * a plain thread while the calling fiber spins without yielding (the seed's cross-thread tests, which the
     * engine's white-box cases run on every runtime), so that the thread's calls happen at a fixed point of the
     * run. Without it, a thread created by a task is a determinism leak and a call from a plain thread is refused;
     * with it, the harness alone answers for the order of those calls. Call before {@code start}.
     *
     * @return this runner
     */
    public SimRunner allowingForeignThreads() {
        this.foreignThreads = true;
        return this;
    }

    /**
     * Where the run reports its meters: the same per-worker meters as {@code UringRunner.Builder.metrics}, with the
     * same tags; each {@link SimCluster} node's lifetime (started, restarted) offers its own as well, tagged with
     * the node's id ({@code node}). Counted in simulated time and read without any effect on the run: the same seed gives the
     * same values, and the same digest whether a sink is set and read or not. Call before {@code start}.
     *
     * @param sink the sink
     * @return this runner
     */
    public SimRunner metrics(dev.lockstep.spi.MetricsSink sink) {
        this.metrics = Objects.requireNonNull(sink, "sink");
        return this;
    }

    /**
     * Sets the line a failure of this run prints to rerun it ({@link SimulationFailure#replayLine()}, the
     * {@link ReplayNote} on a task's exception), in place of {@code SimRunner.of(config)}: for a harness whose run
     * is more than the root task under this configuration — a draw before the task, a crasher it spawns, a chain
     * of restarts — so that every line a failure prints replays it exactly. Call before {@code start}.
     *
     * @param replayLine the line, which should begin with {@code "replay: "}
     * @return this runner
     * @throws IllegalArgumentException if the line is blank or spans lines
     */
    public SimRunner replayedBy(String replayLine) {
        Objects.requireNonNull(replayLine, "replayLine");
        if (replayLine.isBlank() || replayLine.contains("\n") || replayLine.contains("\r")) {
            throw new IllegalArgumentException("a replay line is one line of text, was '" + replayLine + "'");
        }
        this.replayedBy = replayLine;
        return this;
    }

    /**
     * Attaches a harness's own object to this run, for the run's tasks to find through
     * {@link SimControl#attachment(Class)}: settings that travel with this run alone, so that no other run (on this
     * thread or another) sees them and nothing of them outlives the run, however it ends. The simulator only keeps
     * the object: it draws nothing for it and records nothing, so the run's course and digest are the same with or
     * without one. A run resumed from a {@link Checkpoint} is another runner and carries only what is attached to
     * it. Call before {@code start}; a second call replaces the first.
     *
     * @param value the object
     * @return this runner
     */
    public SimRunner attach(Object value) {
        this.attachment = Objects.requireNonNull(value, "value");
        return this;
    }

    /** Makes the run keep its events, for {@link DeterminismCheck}; before {@code start}. */
    SimRunner traced() {
        this.tracing = true;
        return this;
    }

    /** The events of a {@link #traced} run. */
    java.util.List<Auditor.Event> trace() {
        return last == null ? null : last.auditor.trace();
    }

    private Simulation prepare() {
        if (Fibers.current() != null) {
            // Before the runner is marked used: a refused call must not use up a runner that never ran.
            throw new IllegalStateException("SimRunner.start must not be called from a Lockstep task");
        }
        if (!used.compareAndSet(false, true)) {
            throw new ClosedException("this simulator was already started; make a new one");
        }
        Simulation simulation = resume == null ? Simulation.fresh(config) : Simulation.resumed(resume);
        if (tracing) {
            simulation.startTrace();
        }
        if (foreignThreads) {
            simulation.allowForeignThreads();
        }
        simulation.metrics(metrics);
        if (replayedBy != null) {
            simulation.record.replayedBy(replayedBy);
        }
        simulation.attach(attachment);
        last = simulation;
        return simulation;
    }

    @Override
    public <T> T start(Task<T> root) {
        Objects.requireNonNull(root, "root");
        Simulation simulation = prepare();
        Simulation.Result<T> result = onCarrier(simulation, () -> simulation.run(root, false));
        try {
            return result.engine().outcome(result.root());
        } catch (RuntimeException failure) {
            throw annotated(withLeaks(failure, result), simulation);
        } catch (Error failure) {
            throw annotated(withLeaks(failure, result), simulation);
        }
    }

    /** The root's own failure with what the run left open attached (see the class doc's Failures). */
    private static <X extends Throwable> X withLeaks(X failure, Simulation.Result<?> result) {
        if (result.leakBesideRootFailure() != null && failure != result.leakBesideRootFailure()) {
            failure.addSuppressed(result.leakBesideRootFailure());
        }
        return failure;
    }

    /**
     * Runs {@code root} until the simulated machine crashes, and returns how the task ended with the
     * {@link Checkpoint} that {@link #from(Checkpoint)} continues from.
     *
     * <p>The crash comes when the task calls {@link SimControl#crash()}, when the seeded crash point of
     * {@link SimConfig#crashWithinNanos()} is reached (its time is drawn when the run starts), or, if neither
     * came first, as soon as the root task finishes: the machine loses power before anything more is synced.
     * At the crash each file's unsynced writes meet the {@link CrashPolicy}, and the disk image, the generator,
     * the clock and the auditor chain go into the checkpoint. The tasks still running are aborted; what they do
     * while they unwind does not reach the checkpoint (the disk fails every call, every connection is reset).
     *
     * @param root the root task
     * @param <T> its value
     * @return the outcome and the checkpoint
     * @throws SimulationFailure on a stall, a timeout or a determinism leak
     * @throws ClosedException if this runner was used already
     */
    public <T> Recovered<T> startAndRecover(Task<T> root) {
        Objects.requireNonNull(root, "root");
        Simulation simulation = prepare();
        Simulation.Result<T> result = onCarrier(simulation, () -> simulation.run(root, true));
        Throwable runtimeFailure = result.engine().failure();
        if (runtimeFailure instanceof RuntimeException failure) {
            throw annotated(failure, simulation); // the runtime itself failed (a waker threw): not the task's outcome
        }
        if (runtimeFailure instanceof Error failure) {
            throw annotated(failure, simulation);
        }
        Outcome<T> outcome;
        if (result.rootDoneAtCrash()) {
            try {
                outcome = new Outcome.Completed<>(result.engine().outcome(result.root()));
            } catch (ExitedException exited) {
                outcome = new Outcome.Failed<>(withLeaks(exited.getCause() == null ? exited : exited.getCause(),
                        result));
            } catch (RuntimeException | Error failure) {
                outcome = new Outcome.Failed<>(withLeaks(failure, result));
            }
        } else {
            outcome = new Outcome.Crashed<>(result.crashReason(), result.crashedAt());
        }
        return new Recovered<>(outcome, simulation.checkpoint());
    }

    /** Runs the simulation on the calling thread's carrier, which that thread waits for: see {@link SimCarrier}. */
    private static <R> R onCarrier(Simulation simulation, java.util.function.Supplier<R> run) {
        simulation.record.callSite(RunRecord.callerOf(new Throwable().getStackTrace()));
        return SimCarrier.run(simulation, "lockstep-sim-" + simulation.config().seed(), run);
    }

    private static <X extends Throwable> X annotated(X failure, Simulation simulation) {
        failure.addSuppressed(new ReplayNote("the run failed at " + simulation.now() + " with seed "
                + simulation.config().seed() + "\n" + simulation.record.replayLine()));
        return failure;
    }

    /**
     * The control of the simulation running the calling task.
     *
     * @param context the calling task's context
     * @return the control
     * @throws IllegalStateException if not called from a task of a running simulation, or if the context belongs
     *     to another runtime
     */
    public static SimControl control(Context context) {
        Objects.requireNonNull(context, "context");
        Simulation simulation = current("SimRunner.control");
        if (!context.digest().equals(simulation.auditor.digest())) {
            throw new IllegalStateException("SimRunner.control: " + context + " does not belong to the simulation"
                    + " running this task");
        }
        return simulation.control;
    }

    /**
     * Simulated time as a ticker of epoch nanoseconds: {@code control(context).ticker()} ({@link SimControl#ticker()}
     * says how caches and stopwatches take it).
     *
     * @param context the calling task's context
     * @return the ticker
     * @throws IllegalStateException as {@link #control(Context)}
     */
    public static LongSupplier ticker(Context context) {
        return control(context).ticker();
    }

    /** The running simulation whose task calls, or null if the caller is not one of a running simulation's. */
    static Simulation currentOrNull() {
        Worker worker = Worker.current();
        Engine engine = worker == null ? null : worker.engine();
        Kernel kernel = engine == null ? null : engine.kernel();
        if (kernel instanceof SimKernel simKernel && simKernel.simulation instanceof Simulation simulation
                && simulation.isRunning() && simulation.isOnSimulation()) {
            return simulation;
        }
        return null;
    }

    private static Simulation current(String what) {
        Worker worker = Worker.current();
        Engine engine = worker == null ? null : worker.engine();
        Kernel kernel = engine == null ? null : engine.kernel();
        if (!(kernel instanceof SimKernel simKernel) || !(simKernel.simulation instanceof Simulation simulation)
                || !simulation.isRunning()) {
            throw new IllegalStateException(what + " must be called from a task of a running simulation (started"
                    + " with SimRunner.start or startAndRecover), not from thread '" + Thread.currentThread().getName()
                    + "'" + (worker == null ? "" : " of a non-simulated runtime"));
        }
        return simulation;
    }
}
