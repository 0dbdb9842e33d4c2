package dev.lockstep.engine.worker;

import dev.lockstep.engine.Engine;
import dev.lockstep.engine.EngineHooks;
import dev.lockstep.engine.buffer.WorkerBuffers;
import dev.lockstep.engine.request.Driver;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.request.ResultChannel;
import dev.lockstep.sync.FiberSafeLock;
import dev.lockstep.ClosedException;
import dev.lockstep.kernel.CompletionSink;
import dev.lockstep.kernel.Ring;
import dev.lockstep.Waker;

/**
 * One worker: a ring, a driver, a timer wheel (in the driver), a mailbox, a cached clock, a closing flag and a
 * deferred queue of callbacks. The Java form of the seed's {@code Local}.
 *
 * <h2>Ownership</h2>
 * The worker's state is touched only by the worker: by its fibers, and by the thread servicing it. "The
 * current worker" is the worker whose fiber is running or which is being serviced — decided by worker
 * identity, never by OS thread, because the simulator carries every worker on one thread. Other threads and
 * workers reach it only through the {@link Mailbox}.
 *
 * <h2>The critical section</h2>
 * Engine code that mutates the driver holds the worker's state with {@link #borrow()}; a second borrow is a
 * reentrancy bug and throws {@link IllegalStateException}. User code — waker {@code retain}, {@code wake},
 * {@code release}, {@code willWake}, channel sends that wake — never runs inside a borrow: it is collected on
 * the deferred queue and run by {@link #runDeferred()} once the borrow has ended, or, for {@code retain} and
 * {@code willWake} during a poll, called between two borrows. What may run inside, and why, is listed at
 * {@link CriticalSection}: in short, nothing that can park.
 *
 * <h2>Parts</h2>
 * This class holds the state and is what callers register with; the parts that work on it live beside it in this
 * package: {@link CriticalSection} (the borrow flag and the guard against parking inside), {@link WorkerAdmission}
 * (requests admitted, refused and closed), {@link ServiceTurn} (the thread's turns: mailbox, timers, staging, the
 * ring's enter), {@link InlineTurns} (turns its fibers make themselves, within a budget) and {@link WorkerClosure}
 * (retiring). Of these only {@code CriticalSection} (a fiber checks it as it unmounts) and {@code InlineTurns} (an
 * I/O call turns inline while it waits) are reached from other rooms.
 */
public final class Worker {
    private static final ThreadLocal<Worker> CURRENT = new ThreadLocal<>();

    private final int index;
    private final Engine engine;
    private final Ring ring;
    private final Mailbox mailbox;
    private final DeferredQueue deferred = new DeferredQueue();
    private final CompletionSink borrowedSink;
    private final WorkerBuffers buffers = new WorkerBuffers(this);
    /** Counters read by the run's meters; this worker's thread adds to them ({@link WorkerMetrics}). */
    private final WorkerMetrics metrics;
    /** Retired requests, reused by the next ones on this worker (this worker's thread only). */
    private final RetiredRequests retired = new RetiredRequests();
    private Driver driver;
    private final CriticalSection section = new CriticalSection(this);
    private final InlineTurns inlineTurns = new InlineTurns(this);
    private final ServiceTurn serviceTurn = new ServiceTurn(this);
    private final WorkerAdmission admission = new WorkerAdmission(this);
    /** Read by fibers of other workers and plain threads (a spawn placing a fiber here, a poll): volatile. */
    private volatile boolean closing;
    private long nowNanos;
    /**
     * Live fibers whose home is this worker; changed by whichever thread spawns or finishes one
     * ({@link #countFiber}, {@link #fiberFinished}), read by any thread ({@link #liveFibers}).
     */
    private final java.util.concurrent.atomic.AtomicInteger fibers = new java.util.concurrent.atomic.AtomicInteger();

    public Worker(int index, Engine engine, Ring ring) {
        this.index = index;
        this.engine = engine;
        this.ring = ring;
        // A worker built alone by a model-checking test has no engine: it counts into meters no one reads.
        this.metrics = engine == null ? new WorkerMetrics(index) : engine.workerMetrics(index);
        this.mailbox = new Mailbox(ring::wake);
        this.driver = new Driver(this, ring);
        this.nowNanos = ring.nowNanos();
        this.borrowedSink = (userData, result, flags) -> driver.complete(userData, result, flags);
    }

    /**
     * The worker whose fiber is running, or which the calling thread is servicing.
     *
     * @return the worker, or null on a plain thread
     */
    public static Worker current() {
        return CURRENT.get();
    }

    /**
     * The current worker, for a call of the API that only a task may make.
     *
     * @param what the call, named in the message
     * @return the worker whose fiber is running, or which the calling thread is servicing
     * @throws IllegalStateException on a thread that is neither, naming {@code what} and the thread
     */
    public static Worker requireCurrent(String what) {
        Worker worker = current();
        if (worker == null) {
            throw new IllegalStateException(what + " must be called from a task of a Lockstep runtime, not from thread "
                    + Thread.currentThread().getName());
        }
        return worker;
    }

    /**
     * Makes {@code worker} current on the calling thread (a fiber starting, or a thread servicing it).
     *
     * @param worker the worker, or null
     * @return the previously current worker
     */
    public static Worker enter(Worker worker) {
        Worker previous = CURRENT.get();
        // A worker's own thread services it with the worker entered already (ThreadedRunner sets it once for the
        // thread's life): each turn's enter and its restore are then one lookup each, and no ThreadLocal write.
        if (previous != worker) {
            CURRENT.set(worker);
        }
        return previous;
    }

    /**
     * This worker's counters.
     *
     * @return the counters
     */
    public WorkerMetrics metrics() {
        return metrics;
    }

    /**
     * The requests this worker retired, for the next ones it makes to reuse: this worker's thread only.
     *
     * @return this worker's retired requests
     */
    public RetiredRequests retired() {
        return retired;
    }

    /**
     * Requests in the kernel now, for a gauge on any thread: a recent value, 0 once retired. The reader reached
     * this worker through {@code WorkerMetrics}' volatile field, written after the constructor set {@link #driver}
     * (and the driver's final fields), so it sees that driver or, after {@link #abandon()}, null; the driver's
     * counts are then read racily, as {@link WorkerMetrics} (Gauges) argues.
     */
    long inFlightRequests() {
        Driver current = driver;
        return current == null ? 0 : current.inFlight();
    }

    /** Requests admitted and waiting, for a gauge on any thread: a recent value, 0 once retired. */
    long queuedRequests() {
        Driver current = driver;
        return current == null ? 0 : current.queued();
    }

    /**
     * The worker's index in its runtime.
     *
     * @return {@code 0 <= index < workers}
     */
    public int index() {
        return index;
    }

    /**
     * The runtime this worker belongs to.
     *
     * @return the engine
     */
    public Engine engine() {
        return engine;
    }

    /**
     * The worker's ring.
     *
     * @return the ring
     */
    public Ring ring() {
        return ring;
    }

    /**
     * The worker's buffer pool; closed when the worker retires.
     *
     * @return the pool
     */
    public WorkerBuffers buffers() {
        return buffers;
    }

    /**
     * The worker's mailbox.
     *
     * @return the mailbox
     */
    public Mailbox mailbox() {
        return mailbox;
    }

    /**
     * The worker's clock as of its last service turn, in epoch nanoseconds.
     *
     * @return the cached time
     */
    public long nowNanos() {
        return nowNanos;
    }

    /**
     * Whether the worker is closing or retired.
     *
     * @return true once closing began
     */
    public boolean isClosing() {
        return closing;
    }

    /**
     * Marks the worker closing: new registrations are refused with {@link ClosedException}, pending polls
     * resolve to it. Test hook and the first step of {@link #close()}.
     */
    public void markClosing() {
        closing = true;
    }

    /**
     * Whether the worker's state is borrowed right now (a callback seeing true runs inside the critical
     * section: a bug).
     *
     * @return true while borrowed
     */
    public boolean isBorrowed() {
        return section.isHeld();
    }

    /**
     * Unfinished logical requests admitted to this worker; 0 once retired.
     *
     * @return the count
     */
    public int admitted() {
        checkOwner("admitted");
        return driver == null ? 0 : driver.size();
    }

    /**
     * Armed timers of this worker: sleeps and pending requests with deadlines; 0 once retired.
     *
     * @return the count
     */
    public int armedTimers() {
        checkOwner("armedTimers");
        return driver == null ? 0 : driver.armedTimers();
    }

    /**
     * Live fibers whose home is this worker.
     *
     * @return the count
     */
    public int liveFibers() {
        return fibers.get();
    }

    /**
     * Counts a fiber about to start with this worker as its home, unless the worker is closing: the spawn's side
     * of the hand-off with a worker thread that ends ({@link #closeIfNoFibers}). Any thread.
     *
     * <p>Why a fiber cannot be started on a worker whose thread has ended: this method raises the count, then
     * reads {@code closing}; {@link #closeIfNoFibers} writes {@code closing}, then reads the count. Both are
     * volatile, so in every interleaving at least one of the two reads sees the other's write. If the spawn sees
     * the worker closing it takes its count back and nudges the worker, which may have seen that count and stayed
     * for it, so that it looks again; the fiber is not started. Otherwise the worker saw the count and keeps
     * running fibers until it drops to 0, so the fiber, queued once its thread starts, runs. (A check of
     * {@code closing} before the count is raised, and a worker that looks at the count before it marks itself
     * closing, leave a gap in which the worker ends and the fiber is queued to nobody, never to run.)
     *
     * @return true if the fiber is counted and may start; false if the worker is closing (nothing counted)
     */
    public boolean countFiber() {
        fibers.incrementAndGet();
        if (closing) {
            fibers.decrementAndGet();
            nudge();
            return false;
        }
        return true;
    }

    /**
     * Takes back the count {@link #countFiber} made, once that fiber has finished: the last thing its thread does
     * for it, after the scheduler was told it is ending, so a worker whose thread waits for the count to drop
     * keeps running fibers until this one really has finished. Any thread (the fiber's own, on whichever carrier).
     * The decrement is atomic and volatile: the worker's thread, reading the count in {@link #liveFibers} or
     * {@link #closeIfNoFibers}, sees it together with everything the fiber did before it.
     */
    public void fiberFinished() {
        fibers.decrementAndGet();
    }

    /**
     * Marks the worker closing, then says whether it has no live fiber: the worker thread's side of the hand-off
     * with {@link #countFiber} (see there). When it answers true no fiber can be counted any more, so the thread
     * may end; when false, a spawn counted one first, and the thread must run fibers until the count drops.
     * Worker's thread, once the runtime is shutting down and nothing is runnable.
     *
     * @return true if no fiber is live and none can start
     */
    public boolean closeIfNoFibers() {
        closing = true;
        return fibers.get() == 0;
    }

    /**
     * Whether the driver has retired (closure finished).
     *
     * @return true once retired
     */
    public boolean isRetired() {
        return driver == null;
    }

    void checkOwner(String what) {
        if (current() != this) {
            throw new IllegalStateException(what + " must run on worker " + index + ", not on "
                    + (current() == null ? "thread " + Thread.currentThread().getName() : "worker " + current().index));
        }
    }

    /**
     * Enters the worker's critical section ({@link CriticalSection}, which lists what may run inside and why):
     * the caller holds the worker's state (its driver, timers, queues) until {@link #unborrow()}.
     *
     * @return the driver, or null once retired
     * @throws IllegalStateException if already borrowed (reentrancy bug)
     */
    public Driver borrow() {
        section.enter();
        return driver;
    }

    /** Leaves the critical section {@link #borrow()} entered. */
    public void unborrow() {
        section.exit();
    }

    /** The worker's critical section. */
    public CriticalSection criticalSection() {
        return section;
    }

    /** The inline turns its fibers make between two service turns. */
    public InlineTurns inlineTurns() {
        return inlineTurns;
    }

    /** The sink of the ring's completions while the state is borrowed: the driver's. */
    CompletionSink borrowedSink() {
        return borrowedSink;
    }

    /**
     * Whether a deferred callback or a mailbox message waits: work a service turn must do first.
     *
     * @return true if either queue holds something
     */
    boolean hasDeferredOrMail() {
        return !deferred.isEmpty() || !mailbox.isEmpty();
    }

    /**
     * Brings the cached clock up to the ring's: it never goes back.
     *
     * @return the clock's new reading
     */
    long advanceClock() {
        nowNanos = Math.max(nowNanos, ring.nowNanos());
        return nowNanos;
    }

    /** {@link #advanceClock} as it would have read when the ring's clock read {@code ringNanos}. */
    void advanceClockTo(long ringNanos) {
        nowNanos = Math.max(nowNanos, ringNanos);
    }

    /**
     * Queues a callback to run outside the critical section, by the next {@link #runDeferred()}.
     *
     * @param callback user-facing code: a wake, a release, a channel send
     */
    public void defer(Runnable callback) {
        deferred.run(callback);
    }

    /**
     * Queues {@code waker.wake()} like {@link #defer}, without a lambda per completion.
     *
     * @param waker the waker to wake after the borrow
     */
    public void deferWake(Waker waker) {
        deferred.wake(waker);
    }

    /**
     * Queues {@code waker.release()} like {@link #defer}.
     *
     * @param waker the displaced or unused waker
     */
    public void deferRelease(Waker waker) {
        deferred.release(waker);
    }

    /**
     * Queues {@code request.release(ring())} like {@link #defer}, without a lambda per retirement.
     *
     * @param request the retired request
     */
    public void deferRelease(Request request) {
        deferred.release(request);
    }

    /**
     * Runs deferred callbacks until none remain (callbacks may queue more). A callback that throws fails the
     * runtime: the first such failure is what {@code Runner.start} rethrows once every worker retired.
     *
     * @return the number of callbacks run
     */
    public int runDeferred() {
        Worker previous = enter(this);
        try {
            return runDeferredEntered();
        } finally {
            enter(previous);
        }
    }

    /** {@link #runDeferred()} on a thread that has entered this worker already (a service turn). */
    int runDeferredEntered() {
        assert !section.isHeld() : "worker " + index + " runs its deferred callbacks inside its critical section";
        int ran = 0;
        while (!deferred.isEmpty()) {
            ran++;
            try {
                deferred.runOne(ring);
            } catch (RuntimeException | Error failure) {
                engine.fail(failure);
            }
        }
        return ran;
    }

    /**
     * Admits a request on this worker and returns its operation. A closing worker refuses it: the operation
     * resolves to {@link ClosedException} and the request is released outside the critical section.
     *
     * @param request the request
     * @param <T> the operation's value
     * @return the operation
     */
    public <T> Registration<T> register(Request request) {
        // The message is built only on failure: describe() concatenates strings, once per operation otherwise.
        if (current() != this) {
            checkOwner("registering " + request.describe());
        }
        return admission.registerCurrent(request);
    }

    /**
     * {@link #register} for a caller that found this worker with {@link #current()} earlier in the same call, on
     * the same thread: the check that the caller is this worker's is already made, so it is not made again.
     *
     * @param request the request
     * @param <T> the operation's value
     * @return the operation
     */
    public <T> Registration<T> registerCurrent(Request request) {
        return admission.registerCurrent(request);
    }

    /** {@link WorkerAdmission#registerCurrent(Request, Registration)}: reuses the fiber's idle registration. */
    public <T> Registration<T> registerCurrent(Request request, Registration<?> reuse) {
        return admission.registerCurrent(request, reuse);
    }

    /** {@link WorkerAdmission#closeRequest}: closes an operation's request from any thread. */
    public void closeRequest(long key, Thread closer) {
        admission.closeRequest(key, closer);
    }

    /** {@link WorkerAdmission#registerDetached}: a sync whose result goes to a channel nobody has to poll. */
    public ResultChannel<Object> registerDetached(Request request) {
        return admission.registerDetached(request);
    }

    /**
     * Tells the worker, from its own thread during a service turn, that a fiber became runnable: the turn will
     * not block in the ring. Cheaper than {@link #nudge()}, which writes to the ring's eventfd.
     */
    public void markRunnable() {
        serviceTurn.markRunnable();
    }

    /** Wakes the worker from another thread so it looks at its mailbox and permits. Any thread. */
    public void nudge() {
        ring.wake();
    }

    /**
     * One service turn: drain the mailbox, fire due timers, stage queued work, one {@code enter} that submits,
     * optionally waits, and reaps; then run the deferred callbacks ({@link ServiceTurn#service}).
     *
     * @param mayWait whether the turn may block waiting for a completion, a wake-up or the next timer
     * @param maxWaitNanos the longest wait
     * @return the number of completions reaped
     */
    public int service(boolean mayWait, long maxWaitNanos) {
        return serviceTurn.service(mayWait, maxWaitNanos);
    }

    /** {@link EngineHooks#serviceHalf}: see there. */
    public int serviceHalf(int half) {
        return serviceTurn.serviceHalf(half);
    }

    /** {@link EngineHooks#serviceTurnFromHalfOne}: see there. */
    public int serviceTurnFromHalfOne(long ringNanosAtHalfZero) {
        return serviceTurn.serviceTurnFromHalfOne(ringNanosAtHalfZero);
    }

    /** The owner's side of the mailbox ({@link ServiceTurn#drainMailbox}); on the worker's thread. */
    void drainMailbox() {
        serviceTurn.drainMailbox();
    }

    /**
     * Whether the driver has requests queued for the ring: a turn must not wait before it staged them.
     *
     * @return true if queued work waits
     */
    boolean hasQueuedWork() {
        return driver != null && driver.hasQueuedWork();
    }

    /**
     * Whether a service turn has anything to do right now without waiting.
     *
     * @return true if the mailbox, deferred queue or driver has work ready, or an inline turn failed since the
     *     last turn (the next turn rethrows it: a runner that services only a worker with work, the simulator's,
     *     must not leave it stashed)
     */
    public boolean hasReadyWork() {
        return !deferred.isEmpty() || !mailbox.isEmpty() || (driver != null && driver.hasQueuedWork())
                || (driver != null && driver.nextDeadline() <= nowNanos) || inlineTurns.failed();
    }

    /**
     * Whether the driver has requests in the kernel or queued for it.
     *
     * @return true if ring work is outstanding
     */
    public boolean hasRingWork() {
        return driver != null && driver.hasRingWork();
    }

    /**
     * The earliest timer deadline of this worker.
     *
     * @return epoch nanoseconds, or {@link Long#MAX_VALUE}
     */
    public long nextDeadline() {
        return driver == null ? Long.MAX_VALUE : driver.nextDeadline();
    }

    /**
     * Retires the worker (ARCHITECTURE.md §3.6): refuses new work, resolves pending observers with
     * {@link ClosedException}, cancels what can be cancelled, waits for every in-flight completion (the kernel
     * may still use those buffers), retires the driver, closes the mailbox (answering queued forwards with
     * {@code Closed}) and the ring. Runs on the worker's own thread.
     */
    public void close() {
        WorkerClosure.close(this, null);
    }

    /**
     * {@link #close()} for a runtime whose ring never blocks (the simulator): while in-flight work remains and a
     * turn reaped nothing, {@code onIdle} moves time forward.
     *
     * @param onIdle advances the runtime's clock to its next event, or null to let the ring wait
     */
    public void close(Runnable onIdle) {
        WorkerClosure.close(this, onIdle);
    }

    /**
     * Retires the worker without its ring, when {@link #close()} itself failed: see
     * {@link WorkerClosure#abandon}. Runs on the worker's own thread.
     */
    public void abandon() {
        WorkerClosure.abandon(this);
    }

    /**
     * Whether a fiber that unmounted inside the critical section still holds the state: closing must leave it.
     *
     * @return true while stranded
     */
    boolean isStranded() {
        return section.isStranded();
    }

    /** Drops the retired driver: from now on {@link #borrow()} returns null. Inside the critical section. */
    void dropDriver() {
        driver = null;
    }

    @Override
    public String toString() {
        return "worker " + index;
    }
}
