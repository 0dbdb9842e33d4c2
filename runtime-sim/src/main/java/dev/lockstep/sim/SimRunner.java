package dev.lockstep.sim;

import dev.lockstep.ClosedException;
import dev.lockstep.Handle;
import dev.lockstep.Runner;
import dev.lockstep.Task;
import dev.lockstep.engine.Engine;
import dev.lockstep.engine.FiberScheduler;
import dev.lockstep.engine.Fibers;
import dev.lockstep.engine.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The seeded simulator: every simulated worker and every fiber on the calling thread, the next runnable fiber
 * picked by the seed, time jumping to the next event when nothing can run.
 *
 * <h2>The loop</h2>
 * Each step services every worker in index order without waiting (mailbox, timers, staging, completions due
 * now, deferred callbacks), then runs one runnable fiber continuation chosen by the {@link Generator}. When no
 * fiber can run, the clock jumps to the earliest timer or kernel event. Nothing runnable and nothing scheduled
 * is a <em>stall</em>; passing the simulated time limit is a <em>timeout</em>. Both fail the run with
 * {@link SimulationFailure}, whose message ends with the line that replays it.
 *
 * <h2>Determinism leaks</h2>
 * A fiber resumed from any thread other than the simulator's own — the JDK's timer thread after
 * {@code Thread.sleep}, its unblocker thread after a contended monitor, a real socket's poller — would make
 * the run depend on the OS. The scheduler refuses it and fails the run naming the thread and the likely cause.
 */
public final class SimRunner implements Runner {
    private final SimConfig config;
    private final AtomicBoolean used = new AtomicBoolean();
    private Auditor lastAuditor;

    private SimRunner(SimConfig config) {
        this.config = config;
    }

    /**
     * A simulator with defaults and this seed.
     *
     * @param seed the seed
     * @return the runner
     */
    public static SimRunner seeded(long seed) {
        return new SimRunner(SimConfig.builder().seed(seed).build());
    }

    /**
     * A simulator with this configuration.
     *
     * @param config the configuration
     * @return the runner
     */
    public static SimRunner of(SimConfig config) {
        return new SimRunner(config);
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
     * The digest of the last run's auditor (after {@link #start} returned or threw).
     *
     * @return the hex digest
     */
    public String digest() {
        if (lastAuditor == null) {
            throw new IllegalStateException("the simulator has not run yet");
        }
        return lastAuditor.digest();
    }

    @Override
    public <T> T start(Task<T> root) {
        java.util.Objects.requireNonNull(root, "root");
        if (!used.compareAndSet(false, true)) {
            throw new ClosedException("this simulator was already started; make a new one");
        }
        if (Fibers.current() != null) {
            throw new IllegalStateException("SimRunner.start must not be called from a Lockstep task");
        }
        Generator generator = new Generator(config.seed());
        Auditor auditor = new Auditor();
        lastAuditor = auditor;
        generator.setObserver(auditor.drawRecorder());
        SimClock clock = new SimClock(config.startNanos());
        SimFileSystem files = new SimFileSystem(generator, auditor, config.storageFaults());
        SimKernel kernel = SimKernel.builder(generator, auditor, clock)
                .fileSystem(files)
                .behavior(config.kernelBehavior())
                .build();
        Thread simThread = Thread.currentThread();
        List<Ready> ready = new ArrayList<>();
        String[] leak = new String[1];
        Engine[] engineRef = new Engine[1];
        FiberScheduler scheduler = (worker, continuation) -> {
            Thread caller = Thread.currentThread();
            boolean ours = caller == simThread
                    || (caller.isVirtual() && Fibers.current() != null
                        && Fibers.current().home().engine() == engineRef[0]);
            if (!ours) {
                synchronized (leak) {
                    if (leak[0] == null) {
                        leak[0] = "a fiber of worker " + worker.index() + " was resumed from thread '"
                                + caller.getName() + "': " + likelyCause(caller);
                    }
                }
                // Run it anyway, on the simulator thread, so the fiber is not lost while the run fails.
            }
            synchronized (ready) {
                ready.add(new Ready(worker, continuation));
            }
        };
        Engine engine = new Engine(kernel, config.workers(), config.ringEntries(), scheduler,
                config.storageRoot());
        engineRef[0] = engine;
        engine.digestSource(auditor::digest);
        List<Worker> workers = new ArrayList<>();
        for (int i = 0; i < config.workers(); i++) {
            workers.add(engine.createWorker(i));
        }
        int hold = engine.storageHold();
        long limit = config.timeLimitNanos() == Long.MAX_VALUE ? Long.MAX_VALUE
                : config.startNanos() + config.timeLimitNanos();
        Handle<T> rootHandle = engine.startRoot(root);
        boolean shuttingDown = false;
        String failure = null;
        long steps = 0;
        try {
            while (true) {
                synchronized (leak) {
                    if (leak[0] != null && failure == null) {
                        failure = "determinism leak: " + leak[0];
                        engine.abortAll();
                        shuttingDown = true;
                    }
                }
                for (Worker worker : workers) {
                    worker.service(false, 0);
                }
                if (!shuttingDown && (rootHandle.isDone() || engine.failure() != null)) {
                    engine.abortAll();
                    shuttingDown = true;
                }
                Ready next = null;
                synchronized (ready) {
                    if (!ready.isEmpty()) {
                        int pick = ready.size() == 1 ? 0 : generator.nextInt(Site.SCHEDULE, ready.size());
                        next = ready.remove(pick);
                    }
                }
                if (next != null) {
                    steps++;
                    auditor.record("fiber.run", Auditor.u32(next.worker.index()), Auditor.u64(steps));
                    next.continuation.run();
                    continue;
                }
                boolean workersIdle = true;
                for (Worker worker : workers) {
                    if (worker.hasReadyWork()) {
                        workersIdle = false;
                    }
                }
                if (!workersIdle) {
                    continue;
                }
                if (shuttingDown && engine.liveFibers() == 0) {
                    break;
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
                if (nextEvent == Long.MAX_VALUE) {
                    if (shuttingDown) {
                        // Aborted fibers blocked outside Lockstep can never resume; leave them.
                        break;
                    }
                    failure = "stalled: no fiber can run and nothing is scheduled at "
                            + Instant.ofEpochSecond(0, clock.nowNanos()) + " (" + engine.liveFibers()
                            + " fibers waiting)";
                    engine.abortAll();
                    shuttingDown = true;
                    continue;
                }
                if (nextEvent > limit && !shuttingDown) {
                    failure = "timed out: simulated time limit of " + Duration.ofNanos(config.timeLimitNanos())
                            + " reached";
                    engine.abortAll();
                    shuttingDown = true;
                    continue;
                }
                clock.advanceTo(Math.max(clock.nowNanos(), nextEvent));
            }
        } finally {
            for (Worker worker : workers) {
                worker.close(() -> {
                    long event = kernel.nextEventNanos();
                    if (event != Long.MAX_VALUE) {
                        clock.advanceTo(Math.max(clock.nowNanos(), event));
                    }
                });
            }
            engine.releaseStorageHold(hold);
        }
        if (failure != null) {
            throw new SimulationFailure(failure, config);
        }
        return engine.outcome(rootHandle);
    }

    private static String likelyCause(Thread caller) {
        String name = caller.getName();
        if (name.contains("unparker")) {
            return "a timed park (Thread.sleep, LockSupport.parkNanos, a timed wait or Future.get with a timeout)"
                    + " woke on wall-clock time; use ctx.sleep or ctx.timeout";
        }
        if (name.contains("unblocker")) {
            return "a contended monitor (synchronized) held across an await was released by another fiber; use"
                    + " a Lockstep-aware lock or do not hold monitors across awaits";
        }
        if (name.contains("Poller") || name.contains("poller")) {
            return "blocking JDK I/O (a real socket or file channel) completed outside the simulator; use"
                    + " ctx's Network and Storage";
        }
        return "something outside the simulator (another thread, a JDK timer, real I/O) unparked it";
    }

    private record Ready(Worker worker, Runnable continuation) { }
}
