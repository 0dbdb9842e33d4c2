package dev.lockstep.engine;

import dev.lockstep.engine.buffer.ReceiveMemory;
import dev.lockstep.engine.io.EngineStorage;
import dev.lockstep.engine.io.OwnedResources;
import dev.lockstep.engine.io.SharedFd;
import dev.lockstep.engine.task.Fiber;
import dev.lockstep.engine.task.FiberScheduler;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.task.LiveFibers;
import dev.lockstep.engine.task.StopState;
import dev.lockstep.engine.task.Supervision;
import dev.lockstep.engine.task.TaskFibers;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.engine.worker.WorkerMetrics;
import dev.lockstep.sync.FiberSafeLock;
import dev.lockstep.ClosedException;
import dev.lockstep.Context;
import dev.lockstep.ExitedException;
import dev.lockstep.Handle;
import dev.lockstep.Task;
import dev.lockstep.kernel.Errno;
import dev.lockstep.kernel.Kernel;
import dev.lockstep.kernel.Ring;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One runtime instance: its kernel, workers, supervision tree, stop state and first failure. Shared by both
 * runtimes; a runtime's runner decides which threads carry the workers and when fibers run (through its
 * {@link FiberScheduler}).
 *
 * <p>Thread-safe: workers are published once created; the tree, stop state and failure are guarded.
 *
 * <p>How a task runs as a fiber, from its start on its home worker to the report of its end, is
 * {@link TaskFibers}'.
 */
public final class Engine {
    /** Largest ring a runtime accepts. */
    public static final int MAX_RING_ENTRIES = 32768;

    static {
        // What reports running out of descriptors must not need one: a class loaded lazily from a classes
        // directory (a build's or an IDE's) opens its file, which fails with EMFILE just then, and the typed error
        // became a NoClassDefFoundError. So the errno names and the errors a failed open, dial or accept throws
        // are loaded with the engine.
        Errno.describe(Errno.EMFILE);
        List.of(dev.lockstep.ConnectionFailedException.class, dev.lockstep.StorageIoException.class,
                dev.lockstep.kernel.KernelException.class).forEach(Class::getName);
    }

    private final Kernel kernel;
    private final int workerCount;
    private final int ringEntries;
    private final FiberScheduler scheduler;
    private final Worker[] workers;
    /** Each worker's counters, made with the engine so that meters exist before the workers' threads start. */
    private final WorkerMetrics[] metrics;
    private final Supervision supervision = new Supervision();
    private final StopState stop = new StopState();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final LiveFibers fibers = new LiveFibers();
    /** Starts each task's fiber and reports its end. */
    private final TaskFibers tasks;
    /** Guards {@link #workers}, which workers fill in from their own threads while fibers look them up. */
    private final FiberSafeLock workersLock = new FiberSafeLock();
    private final EngineStorage storage;
    private final OwnedResources owned = new OwnedResources();
    /** The run's buffered receive memory; set by the runtime before the root starts ({@link #receiveMemory(ReceiveMemory)}). */
    private volatile ReceiveMemory receiveMemory = new ReceiveMemory(dev.lockstep.ReceiveLimits.DEFAULT);
    private volatile Runnable onFailure = () -> { };
    /** See {@link #hooks(EngineHooks)}; set before the root starts, read by any thread. */
    private volatile EngineHooks hooks = EngineHooks.NONE;

    /**
     * Accounts the run's buffered receive memory in {@code memory}, under its limits. Called before the root
     * starts: connections made later charge it.
     *
     * @param memory the account
     */
    public void receiveMemory(ReceiveMemory memory) {
        this.receiveMemory = java.util.Objects.requireNonNull(memory, "memory");
    }

    /** The run's buffered receive memory. */
    public ReceiveMemory receiveMemory() {
        return receiveMemory;
    }

    /**
     * Bytes of buffered receive memory the run's streams hold now; any thread.
     *
     * @return bytes
     */
    public long receiveBufferBytes() {
        return receiveMemory.held();
    }

    /** Who runs fibers when; a worker asks it whether a fiber may turn the ring inline. */
    public FiberScheduler scheduler() {
        return scheduler;
    }

    /**
     * A runtime over {@code kernel}.
     *
     * @param kernel the kernel
     * @param workers the number of workers, {@code >= 1}
     * @param ringEntries ring size per worker, a power of two in {@code [1, kernel.maxEntries()]}
     * @param scheduler runs fibers
     * @param storageRoot the storage directory, or null for a runtime without storage
     * @throws IllegalArgumentException naming the bad value
     */
    public Engine(Kernel kernel, int workers, int ringEntries, FiberScheduler scheduler, String storageRoot) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1, was " + workers);
        }
        validateRingEntries(ringEntries, kernel.maxEntries());
        Fibers.probe();
        this.kernel = kernel;
        this.workerCount = workers;
        this.ringEntries = ringEntries;
        this.scheduler = scheduler;
        this.tasks = new TaskFibers(this, scheduler, supervision, fibers);
        this.workers = new Worker[workers];
        this.metrics = new WorkerMetrics[workers];
        for (int i = 0; i < workers; i++) {
            metrics[i] = new WorkerMetrics(i);
        }
        this.storage = storageRoot == null ? null : new EngineStorage(this, kernel.system(), storageRoot);
    }

    /**
     * Checks a ring size.
     *
     * @param ringEntries the size
     * @param max the kernel's maximum
     * @throws IllegalArgumentException naming the value unless it is a power of two in {@code [1, max]}
     */
    public static void validateRingEntries(int ringEntries, int max) {
        if (ringEntries < 1 || ringEntries > max || Integer.bitCount(ringEntries) != 1) {
            throw new IllegalArgumentException("ring size must be a power of two between 1 and " + max + ", was "
                    + ringEntries);
        }
    }

    /**
     * Creates worker {@code index} with a ring opened on the calling thread (the thread that will carry it).
     *
     * @param index the worker index
     * @return the worker
     */
    public Worker createWorker(int index) {
        Ring ring = kernel.openRing(ringEntries);
        Worker worker = new Worker(index, this, ring);
        metrics[index].attach(worker);
        workersLock.lock();
        try {
            workers[index] = worker;
        } finally {
            workersLock.unlock();
        }
        return worker;
    }

    /**
     * A worker by index.
     *
     * @param index {@code 0 <= index < workers()}
     * @return the worker, or null if not created yet
     */
    public Worker worker(int index) {
        workersLock.lock();
        try {
            return workers[index];
        } finally {
            workersLock.unlock();
        }
    }

    /**
     * Every created worker.
     *
     * @return the workers, in index order
     */
    public List<Worker> workers() {
        workersLock.lock();
        try {
            List<Worker> list = new ArrayList<>();
            for (Worker worker : workers) {
                if (worker != null) {
                    list.add(worker);
                }
            }
            return Collections.unmodifiableList(list);
        } finally {
            workersLock.unlock();
        }
    }

    /**
     * The number of workers.
     *
     * @return at least 1
     */
    public int workerCount() {
        return workerCount;
    }

    /**
     * The kernel.
     *
     * @return the kernel
     */
    public Kernel kernel() {
        return kernel;
    }

    public Supervision supervision() {
        return supervision;
    }

    StopState stopState() {
        return stop;
    }

    EngineStorage storage() {
        if (storage == null) {
            throw new dev.lockstep.StorageUnavailableException("this runner has no storage: it was built without a"
                    + " storage directory (runtime-uring: UringRunner.builder().storage(directory))");
        }
        return storage;
    }

    /**
     * Takes the storage hold if this runtime has storage (see {@code Storage}): the root is locked for this
     * runtime and synced, so data readable when user code starts is durable.
     *
     * @return the fd holding the lock, or -1 without storage
     */
    public int storageHold() {
        return storage == null ? -1 : storage.acquireHold();
    }

    /**
     * Releases the hold from {@link #storageHold()}.
     *
     * @param hold the fd, or -1
     */
    public void releaseStorageHold(int hold) {
        if (hold >= 0) {
            kernel.system().close(hold);
        }
    }

    /**
     * Records an fd owned by a blob, listener or connection handed to user code, with that owner's close.
     *
     * @param fd the owner's fd
     * @param closeOwner closes the owner (idempotent)
     */
    public void own(SharedFd fd, Runnable closeOwner) {
        owned.own(fd, closeOwner);
    }

    /**
     * Closes every blob, listener and connection of this run that user code did not close, as {@code Runner}
     * promises: when {@code start} returns, every fd the run created is released. Called by a runner once every
     * worker has retired (so no request holds a reference any more); a failure to close joins the run's
     * failures ({@link #fail}). The simulator leaves this to its own leak accounting.
     *
     * @return how many owners were closed
     */
    public int closeOwnedResources() {
        return owned.closeAll(this::fail);
    }

    /**
     * The live fibers, in the order they started.
     *
     * @return a snapshot
     */
    public List<Fiber> fibers() {
        return fibers.snapshot();
    }

    /**
     * A fiber that waits outside Lockstep right now: in a timed park ({@code Thread.sleep}, {@code parkNanos})
     * or blocked on a monitor. Lockstep's own waits are untimed parks, so such a fiber will be resumed by a
     * thread of the JDK, not by the runtime.
     *
     * <p>One caller at a time (the simulator asks from its own thread before every clock jump).
     *
     * @return a description of the first such fiber, or null
     */
    public String fiberWaitingOutsideLockstep() {
        return fibers.firstWaitingOutsideLockstep();
    }

    /**
     * Fibers started and not yet finished.
     *
     * @return the count
     */
    public int liveFibers() {
        return fibers.count();
    }

    /**
     * Records a failure of the runtime itself: a waker callback that threw during worker service, a ring that
     * failed, an engine bug. This is the one path by which anything but a single request's own failure ends
     * a run. The first failure wins: every task is aborted, every worker is told to retire, and the runner
     * rethrows it once every worker has retired; later failures are added to it as suppressed exceptions, so
     * none is lost. Any thread; never throws.
     *
     * @param cause the failure
     */
    public void fail(Throwable cause) {
        if (failure.compareAndSet(null, cause)) {
            supervision.abort(supervision.root());
            onFailure.run();
            return;
        }
        Throwable first = failure.get();
        if (first != cause) {
            // Throwable.addSuppressed is synchronized on the first failure: concurrent workers may add at once.
            first.addSuppressed(cause);
        }
    }

    /**
     * The first runtime failure.
     *
     * @return the failure, or null
     */
    public Throwable failure() {
        return failure.get();
    }

    /**
     * Called once when the first failure is recorded (the runner wakes its workers to shut down).
     *
     * @param action the action
     */
    public void onFailure(Runnable action) {
        this.onFailure = action;
    }

    /**
     * Installs what the runtime hooks into the engine (the simulator's digest and its check of foreign callers);
     * {@link EngineHooks#NONE} unless set. Called before the root starts.
     *
     * @param hooks the hooks
     */
    public void hooks(EngineHooks hooks) {
        this.hooks = java.util.Objects.requireNonNull(hooks, "hooks");
    }

    String digest() {
        return hooks.digest();
    }

    /** Runs the installed check if the calling thread carries no worker. */
    void checkForeignCaller(String what) {
        if (Worker.current() == null) {
            hooks.foreignCaller(what);
        }
    }

    /**
     * {@link #checkForeignCaller} of {@code owner}'s engine; a worker built without an engine (the engine's own
     * model-checking tests drive bare workers) has no check to run.
     */
    public static void checkForeignCaller(Worker owner, String what) {
        checkForeignCaller(owner.engine(), what);
    }

    /**
     * {@link #checkForeignCaller} of {@code engine}, if there is one (a task handle made by the model-checking tests
     * has none).
     */
    public static void checkForeignCaller(Engine engine, String what) {
        if (engine != null) {
            engine.checkForeignCaller(what);
        }
    }

    /**
     * Starts the root task on worker 0, which must exist.
     *
     * @param root the root task
     * @param <T> its value
     * @return its handle
     */
    public <T> Handle<T> startRoot(Task<T> root) {
        Supervision.Node node = supervision.root();
        return tasks.start(worker(0), node, null, "", root, null);
    }

    /** Aborts every task; the runner calls this when the root finished. */
    public void abortAll() {
        supervision.abortBelow(supervision.root(), true);
    }

    /**
     * The run is over: every fiber has finished (or the runner gave up on it), so no holder can close its signal
     * any more, and the waits for a stop or a drain that has not come end with ClosedException (a plain thread's
     * too). Not at {@link #abortAll}: aborted tasks still run their finally blocks then, and close their signals.
     */
    public void endRun() {
        stop.shutDown();
        for (WorkerMetrics counters : metrics) {
            counters.detach();
        }
    }

    /** Worker {@code index}'s counters. */
    public WorkerMetrics workerMetrics(int index) {
        return metrics[index];
    }

    /**
     * The run's meters: every worker's, each tagged with its index and {@code tags}. Made before the workers
     * exist; their gauges read 0 until a worker is created and after the run ended ({@link #endRun()}).
     *
     * @param tags tags every meter carries (the simulator names the node), or none
     * @return an unmodifiable list
     */
    public List<dev.lockstep.spi.Meter> meters(java.util.Map<String, String> tags) {
        List<dev.lockstep.spi.Meter> meters = new ArrayList<>();
        for (WorkerMetrics counters : metrics) {
            meters.addAll(counters.meters(tags));
        }
        return List.copyOf(meters);
    }

    /**
     * Spawns {@code task} below {@code spawner}; {@code owned}, if not null, is closed when the task ends, its body
     * having run or not ({@code Spawner.spawn(AutoCloseable, Task)}).
     */
    <T> Handle<T> spawn(Supervision.Node spawner, int workerIndex, String label, Task<T> task, AutoCloseable owned) {
        if (workerIndex < 0 || workerIndex >= workerCount) {
            throw new IllegalArgumentException("worker must be between 0 and " + (workerCount - 1) + ", was "
                    + workerIndex);
        }
        Supervision.Node node = supervision.child(spawner);
        return tasks.start(worker(workerIndex), node, spawner, label, task, owned);
    }

    /**
     * What {@code Runner.start} returns or throws for the root's handle, once the runtime has shut down.
     *
     * @param root the root's handle
     * @param <T> its value
     * @return the root's value
     */
    public <T> T outcome(Handle<T> root) {
        Throwable runtimeFailure = failure.get();
        if (runtimeFailure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (runtimeFailure instanceof Error error) {
            throw error;
        }
        if (!root.isDone()) {
            throw new ClosedException("the root task did not finish");
        }
        try {
            return root.await();
        } catch (ExitedException exited) {
            // The root's own exception passes through unchanged; only checked exceptions stay wrapped.
            if (exited.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            if (exited.getCause() instanceof Error error) {
                throw error;
            }
            throw exited;
        }
    }

    /**
     * The context of the root node, for runners that need one outside a task.
     *
     * @return a context
     */
    Context rootContext() {
        return new EngineContext(this, supervision.root(), "", true);
    }

    /**
     * Root-level tasks placed so far: the n-th (from 0) goes to worker {@code (n + 1) mod workers}, so the first
     * one leaves the root task's worker (0) to itself when there is another. Incremented by whichever fiber
     * spawns (any worker, a plain thread); in the simulator the spawns come in the seeded order, so the
     * placement is seeded too.
     */
    private final java.util.concurrent.atomic.AtomicLong rootLevelPlacements = new java.util.concurrent.atomic.AtomicLong();

    /**
     * The worker of the next root-level task: round-robin over every worker, starting after the root's.
     *
     * @return a worker index
     */
    int placeRootLevel() {
        return (int) ((rootLevelPlacements.getAndIncrement() + 1) % workerCount);
    }
}
