package dev.lockstep.engine;

import dev.lockstep.AbortedException;
import dev.lockstep.ClosedException;
import dev.lockstep.Handle;
import dev.lockstep.Runner;
import dev.lockstep.Task;
import dev.lockstep.engine.buffer.ReceiveMemory;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.task.Fiber;
import dev.lockstep.engine.task.FiberScheduler;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.worker.InlineTurns;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.engine.worker.WorkerMetrics;
import dev.lockstep.kernel.Kernel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link Runner} that carries each worker on its own platform thread: the thread opens the worker's ring,
 * is the only carrier of the worker's fibers, and loops — run the runnable fibers, then one service turn that
 * submits, waits and reaps. runtime-uring is this runner over the io_uring kernel; the engine's tests run it
 * over a scripted kernel.
 *
 * <p>Shutdown: when the root task finishes (or a waker callback fails the runtime), every task is aborted;
 * each worker keeps looping until its fibers have finished their {@code finally} blocks, then retires
 * (ARCHITECTURE.md §3.6) and its thread ends. {@code start} returns after every worker thread has ended and the
 * storage hold was released.
 *
 * <p>Resources: when {@code start} returns, every blob, listener and connection of the run has been closed,
 * whether or not user code closed it ({@link Engine#closeOwnedResources()}), and every ring was torn down.
 *
 * <p>Failures: a request that fails while being prepared, submitted or completed fails alone (typed, see
 * {@link Request#internalFailure}). Anything else thrown on a worker thread — its ring failed, a service turn
 * or a continuation threw — fails the engine ({@link Engine#fail}): every task is aborted, the failed worker
 * retires at once and carries its fibers to their end, and {@code start} rethrows the first failure, later
 * ones suppressed, once every worker has retired. A worker thread never ends without that.
 *
 * <p>Interruption: interrupting the thread in {@code start} fails the run with {@link AbortedException} (every
 * task is aborted, as for any failure) and {@code start} waits a bounded time, {@link #INTERRUPT_GRACE_NANOS},
 * for the workers to retire. A worker still running then (a fiber blocked in something no abort can reach:
 * a monitor, a plain {@code Thread.join}) is left behind and named in the exception, and the resources of the
 * run are not closed under it. {@code start} returns or throws with the interrupt status set. So a caller's
 * deadline (a test timeout, a shutdown hook, {@code Future.cancel(true)}) always ends {@code start}.
 */
public final class ThreadedRunner implements Runner {
    /** Fibers run per loop turn before the ring is serviced again, so I/O is never starved. */
    private static final int FIBER_BATCH = 64;
    /** How long a retired worker's thread waits for a runnable fiber before looking again. */
    private static final long RETIRED_WAIT_NANOS = 1_000_000L;
    /** How long an interrupted {@code start} waits for the aborted run to retire before it gives up on it. */
    static final long INTERRUPT_GRACE_NANOS = 10_000_000_000L;
    private volatile long interruptGraceNanos = INTERRUPT_GRACE_NANOS;

    /** The most workers a runner takes, as the simulator's {@code SimConfig.workers}. */
    public static final int MAX_WORKERS = 65_000;

    private final Kernel kernel;
    private final int workers;
    private final int ringEntries;
    private final String storageRoot;
    private final String name;
    private final AtomicBoolean used = new AtomicBoolean();
    private volatile ReceiveMemory receiveMemory = new ReceiveMemory(dev.lockstep.ReceiveLimits.DEFAULT);
    /** See {@link #fibersMayWaitInRing(boolean)}; set before {@code start}, read by the scheduler it makes. */
    private volatile boolean fibersMayWaitInRing;

    /**
     * Lets a fiber's inline turn wait in its worker's ring ({@link FiberScheduler#fibersMayWaitInRing}): only for a
     * kernel whose {@code Ring.enter} blocks the calling OS thread rather than parking it (runtime-uring's); off
     * unless set. Called before {@code start}.
     *
     * @param mayWait whether fibers may wait in the ring
     */
    public void fibersMayWaitInRing(boolean mayWait) {
        fibersMayWaitInRing = mayWait;
    }

    private volatile dev.lockstep.spi.MetricsSink metrics = dev.lockstep.spi.MetricsSink.NONE;

    /**
     * Where the run's meters go ({@link dev.lockstep.spi.MetricsSink}); called before {@code start}.
     *
     * @param sink the sink
     */
    public void metrics(dev.lockstep.spi.MetricsSink sink) {
        metrics = java.util.Objects.requireNonNull(sink, "sink");
    }

    /**
     * Bounds the run's buffered receive memory; called before {@code start}.
     *
     * @param limits the bounds
     */
    public void receiveLimits(dev.lockstep.ReceiveLimits limits) {
        receiveMemory = new ReceiveMemory(limits);
    }

    /**
     * Bytes of buffered receive memory the run holds now (see {@link dev.lockstep.ReceiveLimits}); any thread.
     *
     * @return bytes
     */
    public long receiveBufferBytes() {
        return receiveMemory.held();
    }

    /** Tests shorten the grace period of an interrupted start; set before {@code start}. */
    void interruptGrace(Duration grace) {
        interruptGraceNanos = grace.toNanos();
    }

    /** The test seam of {@link #beforeStartCheck}: null unless a test set it before {@code start}. */
    private volatile java.util.function.IntConsumer beforeStartCheck;

    /**
     * A test seam, unset in production: {@code hook} runs on each worker's thread, given the worker's index, just
     * before the thread looks whether another worker's start failed already (and if so skips opening its ring).
     * It lets a test order the workers' starts around a refused ring instead of leaving it to the OS's scheduling.
     * The hook must return (the run waits for every worker's start); one that throws fails the start with what it
     * threw, as a refused ring would, and that worker opens no ring. Set before {@code start}.
     *
     * @param hook called with the worker's index
     */
    void beforeStartCheck(java.util.function.IntConsumer hook) {
        beforeStartCheck = hook;
    }

    /**
     * @param kernel the kernel
     * @param workers worker threads, {@code >= 1}
     * @param ringEntries ring size per worker, a power of two in {@code [1, kernel.maxEntries()]}
     * @param storageRoot the storage directory, or null
     * @param name a prefix for thread names
     * @throws IllegalArgumentException naming the bad value
     */
    public ThreadedRunner(Kernel kernel, int workers, int ringEntries, String storageRoot, String name) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1, was " + workers);
        }
        if (workers > MAX_WORKERS) {
            throw new IllegalArgumentException("workers must be at most " + MAX_WORKERS + " (as SimConfig.workers),"
                    + " was " + workers);
        }
        Engine.validateRingEntries(ringEntries, kernel.maxEntries());
        this.kernel = kernel;
        this.workers = workers;
        this.ringEntries = ringEntries;
        this.storageRoot = storageRoot;
        this.name = name;
    }

    @Override
    public <T> T start(Task<T> root) {
        java.util.Objects.requireNonNull(root, "root");
        if (Fibers.current() != null) {
            // Before the runner is marked used: a refused call must not use up a runner that never ran.
            throw new IllegalStateException("Runner.start must not be called from a Lockstep task");
        }
        if (!used.compareAndSet(false, true)) {
            throw new ClosedException("this runner was already started; make a new one");
        }
        @SuppressWarnings("unchecked")
        ConcurrentLinkedQueue<Runnable>[] runQueues = new ConcurrentLinkedQueue[workers];
        @SuppressWarnings("unchecked")
        ArrayDeque<Runnable>[] localQueues = new ArrayDeque[workers];
        Thread[] threads = new Thread[workers];
        AtomicBoolean[] retired = new AtomicBoolean[workers];
        for (int i = 0; i < workers; i++) {
            runQueues[i] = new ConcurrentLinkedQueue<>();
            localQueues[i] = new ArrayDeque<>();
            retired[i] = new AtomicBoolean();
        }
        boolean mayWaitInRing = fibersMayWaitInRing;
        FiberScheduler scheduler = new FiberScheduler() {
            @Override
            public void schedule(Worker worker, Fiber fiber, Runnable continuation) {
                // A wake on the worker's own thread — one of its fibers waking another, or its service turn
                // running a completion's deferred wake — goes to the worker's local queue: only that thread ever
                // touches it, so it needs no lock and costs no queue node. The thread is running, not waiting, so
                // it needs no nudge: a fiber's wake is seen by the loop's next look at the queue, and a wake from
                // the service turn marks the worker runnable so that turn does not block in the ring.
                Fiber caller = Fibers.current();
                if (caller != null && caller.home() == worker) {
                    localQueues[worker.index()].add(continuation);
                    return;
                }
                if (Thread.currentThread() == threads[worker.index()]) {
                    localQueues[worker.index()].add(continuation);
                    worker.markRunnable();
                    return;
                }
                // Anyone else: the shared queue first, then a nudge, so the worker cannot miss it (it looks at
                // the queue after any wake-up, and before it waits).
                // Counted before the add, so the worker's loop, which subtracts what it ran, never takes the count
                // below the continuations still queued (the gauge reads a count, not the queue).
                worker.metrics().foreignQueued();
                runQueues[worker.index()].add(continuation);
                ForeignResumeEvent.record(worker, caller);
                if (retired[worker.index()].get()) {
                    // Its ring is gone: the thread waits in a park (see loop). The continuation was queued
                    // before the flag was read, so an unpark here cannot come before the park it ends.
                    java.util.concurrent.locks.LockSupport.unpark(threads[worker.index()]);
                } else {
                    worker.nudge();
                }
            }

            /**
             * A fiber ends on its own virtual thread, and every fiber of a worker is carried by that worker's
             * thread alone (its continuations are queued only to that worker's queues above). When the ending
             * fiber's carrier returns from the continuation, it is back in {@link #loop}, which looks at the
             * worker's live fibers (and its queues: the awaiter this end woke went to the local queue) before it
             * may wait in the ring. So the end of a fiber of this worker needs no eventfd write: the common case,
             * a committing task that ends and resumes the fiber that awaited it. Any other caller (none today)
             * still nudges, as the default does.
             */
            @Override
            public void fiberEnding(Worker worker) {
                Fiber ending = Fibers.current();
                if (ending == null || ending.home() != worker) {
                    worker.nudge();
                }
            }

            /**
             * Nothing else of the worker is runnable: its local queue (this thread's, the caller runs on it) and
             * the shared queue (read without a lock; a fiber queued there a moment after the look only waits for
             * this fiber's next park or the next service turn, at most {@link InlineTurns#PER_SERVICE}
             * inline turns away, as it would behind any running fiber).
             */
            @Override
            public boolean mayTurnInline(Worker worker) {
                return localQueues[worker.index()].isEmpty() && runQueues[worker.index()].isEmpty();
            }

            @Override
            public boolean fibersMayWaitInRing() {
                return mayWaitInRing;
            }
        };
        Engine engine = new Engine(kernel, workers, ringEntries, scheduler, storageRoot);
        engine.receiveMemory(receiveMemory);
        dev.lockstep.spi.MetricsSink sink = metrics;
        List<dev.lockstep.spi.Meter> meters = engine.meters(java.util.Map.of());
        sink.runStarted(meters);
        int hold = engine.storageHold();
        AtomicBoolean shutdown = new AtomicBoolean();
        CountDownLatch created = new CountDownLatch(workers);
        Throwable[] startFailure = new Throwable[1];
        engine.onFailure(() -> engine.workers().forEach(Worker::nudge));
        java.util.function.IntConsumer startHook = beforeStartCheck;
        for (int i = 0; i < workers; i++) {
            int index = i;
            threads[i] = Thread.ofPlatform().name(name + "-worker-" + i).unstarted(() -> {
                Worker worker;
                if (startHook != null) {
                    try {
                        startHook.accept(index);
                    } catch (Throwable failure) {
                        // A hook that throws fails the start as a refused ring would; the count-down is what the
                        // starting thread waits for, so it happens whatever the hook did.
                        synchronized (startFailure) {
                            if (startFailure[0] == null) {
                                startFailure[0] = failure;
                            }
                        }
                        created.countDown();
                        return;
                    }
                }
                synchronized (startFailure) {
                    if (startFailure[0] != null) {
                        // Another worker's ring was refused already: the run will not start, so opening (and
                        // failing to open) more rings only slows the failure down (each refused ring closes a
                        // shared arena, a handshake with every live thread: quadratic in the worker count).
                        created.countDown();
                        return;
                    }
                }
                try {
                    worker = engine.createWorker(index);
                } catch (Throwable failure) {
                    synchronized (startFailure) {
                        if (startFailure[0] == null) {
                            startFailure[0] = failure;
                        }
                    }
                    created.countDown();
                    return;
                }
                created.countDown();
                loop(worker, runQueues[index], localQueues[index], shutdown, retired[index]);
            });
            threads[i].start();
        }
        awaitUninterruptibly(created);
        Handle<T> rootHandle = null;
        Interruption interruption = new Interruption(engine, interruptGraceNanos);
        try {
            if (startFailure[0] == null) {
                rootHandle = engine.startRoot(root);
                rootHandle.poll(null);
                interruption.awaitRoot(rootHandle);
            }
        } finally {
            engine.abortAll();
            shutdown.set(true);
            for (Worker worker : engine.workers()) {
                worker.nudge();
            }
            List<Thread> leftBehind = new ArrayList<>();
            for (Thread thread : threads) {
                if (!interruption.join(thread)) {
                    leftBehind.add(thread);
                }
            }
            // Every fiber has finished (or was left behind): waits on the stop state end now (Engine.endRun).
            engine.endRun();
            if (!leftBehind.isEmpty()) {
                Thread.currentThread().interrupt();
                throw interruption.abandoned(leftBehind);
            }
            // Every worker ended with no live fiber and none could be counted after (Worker.closeIfNoFibers), so
            // every fiber ever started has finished; one that has not was started on a worker whose thread had
            // ended and will never run: an engine bug, reported rather than left behind unseen.
            if (engine.liveFibers() != 0) {
                engine.fail(new IllegalStateException(engine.liveFibers() + " fiber(s) never finished: started on"
                        + " a worker whose thread had ended (a bug in the engine)"));
            }
            // Every worker retired, so no request holds an fd any more: what user code left open is closed now.
            engine.closeOwnedResources();
            engine.releaseStorageHold(hold);
            if (interruption.happened()) {
                Thread.currentThread().interrupt();
            }
            sink.runEnded(meters);
        }
        if (startFailure[0] instanceof RuntimeException failure) {
            throw failure;
        }
        if (startFailure[0] instanceof Error failure) {
            throw failure;
        }
        return engine.outcome(rootHandle);
    }

    /**
     * What an interrupt of start's thread does to the waits at the end of a run. Until the first interrupt every
     * wait is unbounded; the first one fails the run with {@link AbortedException} and starts the grace period,
     * and every later wait ends by its deadline. Confined to start's thread.
     */
    private static final class Interruption {
        private final Engine engine;
        private final long graceNanos;
        /** System.nanoTime() at which the grace period ends; 0 until the first interrupt. */
        private long deadline;

        Interruption(Engine engine, long graceNanos) {
            this.engine = engine;
            this.graceNanos = graceNanos;
        }

        boolean happened() {
            return deadline != 0L;
        }

        /** The first interrupt: the run fails, and the grace period begins. */
        void noted() {
            if (deadline == 0L) {
                deadline = System.nanoTime() + graceNanos;
                engine.fail(new AbortedException("Runner.start was interrupted: every task was aborted"));
            }
        }

        /** Waits for the root task, until the aborted root finishes or the grace period ends. */
        <T> void awaitRoot(Handle<T> root) {
            Thread thread = Thread.currentThread();
            dev.lockstep.Waker waker = () -> LockSupport.unpark(thread);
            while (!root.poll(waker).isReady()) {
                if (Thread.interrupted()) {
                    noted();
                }
                if (deadline == 0L) {
                    LockSupport.park(root);
                } else {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    LockSupport.parkNanos(root, left);
                }
            }
        }

        /**
         * Joins a worker thread: without limit until start is interrupted, then until the grace period ends.
         *
         * @return whether the thread ended
         */
        boolean join(Thread thread) {
            while (true) {
                try {
                    if (deadline == 0L) {
                        thread.join();
                        return true;
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return !thread.isAlive();
                    }
                    return thread.join(Duration.ofNanos(left));
                } catch (InterruptedException e) {
                    noted();
                }
            }
        }

        AbortedException abandoned(List<Thread> leftBehind) {
            StringBuilder message = new StringBuilder("Runner.start was interrupted and ")
                    .append(leftBehind.size()).append(leftBehind.size() == 1 ? " worker" : " workers")
                    .append(" did not retire within ").append(Duration.ofNanos(graceNanos))
                    .append("; left running, their resources not closed:");
            for (Thread thread : leftBehind) {
                message.append(' ').append(thread.getName());
            }
            AbortedException failure = new AbortedException(message.toString(), engine.failure());
            for (Thread thread : leftBehind) {
                Throwable where = new Throwable(thread.getName() + " at the deadline");
                where.setStackTrace(thread.getStackTrace());
                failure.addSuppressed(where);
            }
            return failure;
        }
    }

    /**
     * One worker thread's life. Nothing thrown here may end the thread quietly: a failure of a service turn
     * (the ring failed, an engine bug) or of a fiber's continuation goes to {@link Engine#fail}, which aborts
     * every task and makes {@code start} rethrow it. A worker whose service failed retires at once, in order
     * ({@link #retire}), and its thread then only carries its fibers to the end of their {@code finally}
     * blocks: every request they make is refused with {@code ClosedException}, and the ring that would wake the
     * thread is gone, so it waits for runnable fibers with an unpark from the scheduler (and a short timed park
     * in case an unpark raced with the flag that asks for it).
     */
    private static void loop(Worker worker, ConcurrentLinkedQueue<Runnable> runQueue, ArrayDeque<Runnable> localQueue,
                             AtomicBoolean shutdown, AtomicBoolean retired) {
        Worker.enter(worker);
        Engine engine = worker.engine();
        WorkerMetrics metrics = worker.metrics();
        try {
            while (true) {
                // Only fibers woken locally before this turn run now: a fiber that yields (queued locally again)
                // runs after the next service. Each queue runs at most FIBER_BATCH per turn, so neither starves
                // the other, nor the ring.
                WorkerStallEvent stall = new WorkerStallEvent();
                stall.begin();
                int local = Math.min(FIBER_BATCH, localQueue.size());
                for (int ran = 0; ran < local; ran++) {
                    run(engine, localQueue.pollFirst());
                }
                int foreign = 0;
                for (; foreign < FIBER_BATCH; foreign++) {
                    Runnable continuation = runQueue.poll();
                    if (continuation == null) {
                        break;
                    }
                    run(engine, continuation);
                }
                // The counts for the metrics: this thread's queue is its own; the shared queue's count was raised
                // by each scheduler before its add, so it never goes below the continuations still queued.
                if (foreign > 0) {
                    metrics.foreignRan(foreign);
                }
                metrics.localRunnable(localQueue.size());
                stall.end();
                if (stall.shouldCommit()) {
                    stall.worker = worker.index();
                    stall.fibers = local + foreign;
                    stall.commit();
                }
                boolean idle = runQueue.isEmpty() && localQueue.isEmpty();
                // Ends only once no fiber is live and none can be started on it any more (Worker.countFiber).
                if (shutdown.get() && worker.liveFibers() == 0 && idle && worker.closeIfNoFibers()) {
                    break;
                }
                if (retired.get()) {
                    if (idle) {
                        java.util.concurrent.locks.LockSupport.parkNanos(RETIRED_WAIT_NANOS);
                    }
                    continue;
                }
                try {
                    // May wait only with nothing runnable: the local queue is this thread's alone, and a shared
                    // enqueue after the look nudges the ring, so the wait ends at once.
                    worker.service(idle, Long.MAX_VALUE);
                } catch (Throwable failure) {
                    engine.fail(failure);
                    retire(worker);
                    retired.set(true);
                }
            }
        } finally {
            if (!retired.get()) {
                retire(worker);
                retired.set(true);
            }
            Worker.enter(null);
        }
    }

    private static void run(Engine engine, Runnable continuation) {
        try {
            continuation.run();
        } catch (Throwable failure) {
            engine.fail(failure);
        }
    }

    /**
     * Retires a worker in order ({@link Worker#close()}: pending requests cancelled or finished, the ring
     * drained and torn down, every fd and buffer released). If that fails too — the ring cannot be drained —
     * the failure joins the engine's and the worker is {@linkplain Worker#abandon() abandoned}. Never throws.
     */
    private static void retire(Worker worker) {
        try {
            worker.close();
        } catch (Throwable failure) {
            worker.engine().fail(failure);
            try {
                worker.abandon();
            } catch (Throwable again) {
                worker.engine().fail(again);
            }
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
