package dev.lockstep.engine;

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
 * {@link #borrow()}: in short, nothing that can park.
 *
 * <p>Why one class of about 930 lines: everything here reads or writes the borrow flag, the deferred queue or the
 * cached clock, and the rules of the critical section are argued once, over all of them; split, each piece would
 * have to repeat them and expose the flag. What does not need them lives elsewhere (the {@link Driver}, the
 * {@link Mailbox}, the {@link DeferredQueue}).
 *
 * <h2>Size</h2>
 * Over 600 lines (about 930): the worker's critical section (borrow and unborrow), its service turn and inline
 * turns, deferred work, registration and closing all guard the same owner-thread state, and the argument of what
 * may run inside the critical section ({@link #borrow()}) holds only with all of them in view.
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
    /** Retired blob reads, reused by the next ones on this worker (see {@link Recycler}: this worker only). */
    final Recycler<EngineBlob.ReadRequest> blobReads = new Recycler<>();
    /** Retired blob writes, as {@link #blobReads}. */
    final Recycler<EngineBlob.WriteRequest> blobWrites = new Recycler<>();
    /** Retired sends, as {@link #blobReads}. */
    final Recycler<EngineNetwork.SendRequest> sends = new Recycler<>();
    private Driver driver;
    private boolean borrowed;
    /**
     * The fiber that unmounted while it held the state (see {@link #borrow()}), or null. Written and read only
     * by the worker's carrier: the guard runs right after the fiber's continuation returned on it.
     */
    private Fiber stranded;
    /** Read by fibers of other workers and plain threads (a spawn placing a fiber here, a poll): volatile. */
    private volatile boolean closing;
    /**
     * A fiber became runnable during this worker's own service turn: the turn must not block. Cleared when a turn
     * starts: a wake in an earlier turn was seen by the fiber loop, which ran the fiber before this turn (or, with
     * fibers still queued, asked for a turn that does not wait), so it must not stop this turn from waiting. Left
     * set, it made the turn after every wake submit without waiting, and a request that completes later than its
     * submission (a buffered write through io-wq, a direct read) cost a second {@code io_uring_enter} to wait.
     */
    private boolean runnable;
    private long nowNanos;
    /**
     * Inline turns left before the next service turn ({@link #turnInline}); reset by every service turn. Bounds
     * how long a fiber whose requests keep completing at submission can keep the thread: after this many, it
     * parks like any other, and the service turn drains the mailbox, fires timers and runs what was woken.
     */
    private int inlineTurnsLeft;
    /**
     * What an inline turn's ring threw (the ring failed), rethrown by the next service turn, so that the runner
     * fails the engine and retires this worker exactly as when a service turn's own enter fails, and the fiber
     * that made the turn never sees the ring's exception in place of its result. Worker's thread only.
     */
    private RuntimeException inlineFailure;
    private Error inlineError;
    /** Inline turns between two service turns, at most: see {@link #inlineTurnsLeft}. */
    static final int INLINE_TURNS_PER_SERVICE = 32;
    /** Live fibers whose home is this worker; changed by whichever thread spawns or finishes one. */
    final java.util.concurrent.atomic.AtomicInteger fibers = new java.util.concurrent.atomic.AtomicInteger();

    Worker(int index, Engine engine, Ring ring) {
        this.index = index;
        this.engine = engine;
        this.ring = ring;
        this.metrics = engine.workerMetrics(index);
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

    /** Requests in the kernel now, for a gauge on any thread: a recent value, 0 once retired. */
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
    WorkerBuffers buffers() {
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
        return borrowed;
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
    boolean countFiber() {
        fibers.incrementAndGet();
        if (closing) {
            fibers.decrementAndGet();
            nudge();
            return false;
        }
        return true;
    }

    /**
     * Marks the worker closing, then says whether it has no live fiber: the worker thread's side of the hand-off
     * with {@link #countFiber} (see there). When it answers true no fiber can be counted any more, so the thread
     * may end; when false, a spawn counted one first, and the thread must run fibers until the count drops.
     * Worker's thread, once the runtime is shutting down and nothing is runnable.
     *
     * @return true if no fiber is live and none can start
     */
    boolean closeIfNoFibers() {
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
     * Enters the critical section: the caller holds the worker's state (its driver, timers, queues) until
     * {@link #unborrow()}.
     *
     * <p>The state is a plain flag, not a lock, because only the worker touches it: a fiber of this worker
     * (registering, polling, closing an operation) or the thread servicing it. On runtime-uring the fibers of
     * a worker run on its one thread, so a fiber inside a borrow and that thread's service turn exclude each
     * other only as long as the fiber does not unmount. Hence the rule: <b>nothing reachable inside a borrow
     * may park</b> — no monitor another thread can hold (a virtual thread that contends one unmounts, JDK 24
     * and later), no {@code java.util.concurrent} lock, no {@code LockSupport.park}, no {@code await}. If it
     * did, the carrier would go on to service the worker, find the state borrowed and fail; with the fiber
     * parked for good, the runner would wedge.
     *
     * <p>What runs inside, and why it cannot park:
     * <ul>
     *   <li>the {@link Driver} and its {@link TimerHeap}, slots and queues: confined to this worker;</li>
     *   <li>{@link Request} methods ({@code kind}, {@code permit}, {@code prepare}, {@code complete},
     *       {@code runImmediate}, {@code closedEarly}, {@code timedOut}): they touch their own fields, atomics,
     *       ring memory and synchronous system calls, which block the carrier in the kernel but never unmount a
     *       fiber ({@code prepare}, {@code complete} and {@code runImmediate} run on the carrier in a service
     *       turn, or on a fiber that turns the ring itself, {@link #turnInline}: a lock one of them shares with
     *       other threads, a stream's buffered bytes, is taken with
     *       {@link dev.lockstep.sync.FiberSafeLock#lockWithoutUnmounting()}, which spins where {@code lock()}
     *       would yield; {@code UringPeekDuringInlineTurnsTest} failed within a second before it did).
     *       Storage metadata (open, remove, scan) is not run here at all: it is a {@code BLOCKING_CALL} the
     *       kernel runs off the worker, and inside the borrow it only joins, tests and leaves its partition's
     *       {@link MetadataLane}, a lock-free queue. Everything else a carrier shares with
     *       fibers — a stream's buffered bytes, a {@link OneShot}, the mailbox, wait lists, the supervision tree —
     *       is guarded by a {@link FiberSafeLock}, for which no fiber ever queues: a fiber queued on a monitor
     *       that its own carrier then contends is handed the monitor while its only carrier is blocked behind it,
     *       and both wait for ever;</li>
     *   <li>{@link DurabilityPermit}: atomics and a lock-free queue of waiting workers;</li>
     *   <li>{@link Ring#wake()} of another worker (a permit released): an eventfd write, lock-free;</li>
     *   <li>{@link #defer}: a queue confined to this worker. Everything else — wakes, releases, channel sends
     *       — is deferred and runs after the borrow;</li>
     *   <li>the service turn's {@link Ring#enter}, which may wait in the kernel: on the carrier, not in a fiber,
     *       and no fiber of this worker can run while its carrier waits, so nobody else needs the state.</li>
     * </ul>
     *
     * <p>A violation is turned into a loud failure: every continuation of a fiber runs through
     * {@link Fiber#runContinuation}, which, when the fiber unmounted with the state still borrowed, fails the
     * runtime with an {@link IllegalStateException} carrying that fiber's stack. Until the fiber resumes and ends
     * its borrow, service turns leave the state alone.
     *
     * @return the driver, or null once retired
     * @throws IllegalStateException if already borrowed (reentrancy bug)
     */
    Driver borrow() {
        if (borrowed) {
            throw new IllegalStateException("worker " + index + " state is already borrowed: a callback ran inside"
                    + " the worker's critical section");
        }
        borrowed = true;
        return driver;
    }

    void unborrow() {
        borrowed = false;
        stranded = null;
    }

    /**
     * Called on the carrier after a continuation of {@code fiber} returned, that is, after the fiber unmounted
     * or finished: if it left the state borrowed, it parked inside the critical section.
     *
     * @param fiber the fiber whose continuation just returned
     */
    void checkUnmounted(Fiber fiber) {
        if (!borrowed || stranded != null) {
            return;
        }
        stranded = fiber;
        IllegalStateException violation = new IllegalStateException("fiber '" + fiber.label() + "' of worker "
                + index + " unmounted (parked, or blocked on a monitor) while it held the worker's state: nothing"
                + " inside Worker.borrow() may park; this exception carries the fiber's stack at that moment");
        Thread thread = fiber.thread();
        if (thread != null) {
            violation.setStackTrace(thread.getStackTrace());
        }
        engine.fail(violation);
    }

    /**
     * Whether a fiber that unmounted inside the critical section still holds the state: nothing may touch it
     * until that fiber resumes and ends its borrow.
     */
    private boolean isStranded() {
        return borrowed && stranded != null;
    }

    /**
     * Queues a callback to run outside the critical section, by the next {@link #runDeferred()}.
     *
     * @param callback user-facing code: a wake, a release, a channel send
     */
    void defer(Runnable callback) {
        deferred.run(callback);
    }

    /**
     * Queues {@code waker.wake()} like {@link #defer}, without a lambda per completion.
     *
     * @param waker the waker to wake after the borrow
     */
    void deferWake(Waker waker) {
        deferred.wake(waker);
    }

    /**
     * Queues {@code waker.release()} like {@link #defer}.
     *
     * @param waker the displaced or unused waker
     */
    void deferRelease(Waker waker) {
        deferred.release(waker);
    }

    /**
     * Queues {@code request.release(ring())} like {@link #defer}, without a lambda per retirement.
     *
     * @param request the retired request
     */
    void deferRelease(Request request) {
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
    private int runDeferredEntered() {
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
        return registerCurrent(request);
    }

    /**
     * {@link #register} for a caller that found this worker with {@link #current()} earlier in the same call, on
     * the same thread: the check that the caller is this worker's is already made, so it is not made again.
     *
     * @param request the request
     * @param <T> the operation's value
     * @return the operation
     */
    <T> Registration<T> registerCurrent(Request request) {
        Driver slab = borrow();
        try {
            if (!closing && slab != null) {
                return new Registration<>(this, slab.admit(request, null, nowNanos));
            }
        } finally {
            unborrow();
        }
        // Described before the release, which may hand the request to a recycler.
        String refused = "worker " + index + " is closed: " + request.describe() + " refused";
        request.release(ring);
        return Registration.closed(refused);
    }

    /**
     * {@link #registerCurrent} that re-points {@code reuse}, a fiber's reusable registration of this worker
     * ({@link Registration#reusable}), at the admitted request instead of making a new one; with {@code reuse}
     * null, or of another worker, it makes one as {@link #registerCurrent} does. A refused request gets a new
     * refused operation, as there.
     *
     * @param request the request
     * @param reuse the calling fiber's idle reusable registration, or null
     * @param <T> the operation's value
     * @return the operation
     */
    @SuppressWarnings("unchecked")
    <T> Registration<T> registerCurrent(Request request, Registration<?> reuse) {
        if (reuse == null || reuse.owner() != this) {
            return registerCurrent(request);
        }
        Driver slab = borrow();
        try {
            if (!closing && slab != null) {
                reuse.reuse(slab.admit(request, null, nowNanos));
                return (Registration<T>) reuse;
            }
        } finally {
            unborrow();
        }
        String refused = "worker " + index + " is closed: " + request.describe() + " refused";
        request.release(ring);
        return Registration.closed(refused);
    }

    /**
     * Closes the request an operation of this worker names, from any thread: at once on this worker outside
     * its critical section, through the {@link Mailbox} elsewhere. A key whose request retired names a retired
     * generation, which is ignored, so a late close cannot reach a later request in the same slot.
     *
     * @param key the request's user data ({@link WaiterId#userData()})
     * @param closer the closing thread: a waker it installed itself is released, any other is woken
     */
    void closeRequest(long key, Thread closer) {
        if (current() == this && !isBorrowed()) {
            Driver slab = borrow();
            try {
                if (slab != null) {
                    slab.close(key, closer);
                }
            } finally {
                unborrow();
            }
        } else {
            Engine.checkForeignCaller(this, "Operation.close");
            mailbox.send(new Mailbox.Cancel(WaiterId.fromUserData(key)));
        }
    }

    /**
     * Admits a sync whose result goes to a channel nobody has to poll: returns at once, even with a full ring.
     * A closing worker publishes {@link ClosedException} on the channel.
     *
     * @param request the sync
     * @return the channel
     */
    public OneShot<Object> registerDetached(Request request) {
        if (current() != this) {
            checkOwner("registering " + request.describe());
        }
        OneShot<Object> channel = new OneShot<>("worker " + index + " closed before " + request.describe()
                + " finished");
        Driver slab = borrow();
        try {
            if (!closing && slab != null) {
                slab.admit(request, channel, nowNanos);
                return channel;
            }
        } finally {
            unborrow();
        }
        request.release(ring);
        channel.closeSender();
        return channel;
    }

    /**
     * Tells the worker, from its own thread during a service turn, that a fiber became runnable: the turn will
     * not block in the ring. Cheaper than {@link #nudge()}, which writes to the ring's eventfd.
     */
    public void markRunnable() {
        runnable = true;
    }

    /** Wakes the worker from another thread so it looks at its mailbox and permits. Any thread. */
    public void nudge() {
        ring.wake();
    }

    /**
     * One service turn: drain the mailbox, fire due timers, stage queued work, one {@code enter} that submits,
     * optionally waits, and reaps; then run the deferred callbacks.
     *
     * @param mayWait whether the turn may block waiting for a completion, a wake-up or the next timer
     * @param maxWaitNanos the longest wait
     * @return the number of completions reaped
     */
    public int service(boolean mayWait, long maxWaitNanos) {
        if (isStranded()) {
            // Already reported (checkUnmounted failed the runtime): the state is the stranded fiber's until it
            // resumes on this carrier, which only the runner's fiber loop can do. Leave the turn to it.
            Thread.yield();
            return 0;
        }
        Worker previous = enter(this);
        try {
            runnable = false;
            rethrowInlineFailure();
            inlineTurnsLeft = INLINE_TURNS_PER_SERVICE;
            if (half(true, false, 0) < 0) {
                return 0;
            }
            boolean waitNow = mayWait && !runnable && deferred.isEmpty() && mailbox.isEmpty()
                    && !driver.hasQueuedWork();
            long untilTimer = driver.nextDeadline() == Long.MAX_VALUE ? Long.MAX_VALUE
                    : Math.max(0, driver.nextDeadline() - nowNanos);
            return Math.max(0, half(false, waitNow, Math.min(maxWaitNanos, untilTimer)));
        } finally {
            enter(previous);
        }
    }

    /**
     * A turn of the ring made by a fiber of this worker, in place of parking, for a request it is about to await
     * that usually completes at submission ({@link Request#completesAtSubmission}) — or, see below, one that
     * completes later: stage what is queued (every
     * fiber's, not only this one's), one {@code io_uring_enter} that submits and reaps without waiting, then the
     * deferred callbacks. If the request completed, the fiber's poll takes the result and it never parks: no
     * continuation is frozen and thawed, no service turn runs for it. Timers, the mailbox and the clock are
     * left to the next service turn, which comes after at most {@link #INLINE_TURNS_PER_SERVICE} inline turns.
     *
     * <p>A request that completes later (a direct read, a receive, a sync) gets the same turn, waiting, when the
     * runner lets a fiber wait in its ring ({@link FiberScheduler#fibersMayWaitInRing}: runtime-uring's) and
     * nothing else of the worker can run: no runnable fiber, no deferred callback, no message, no due timer. The
     * fiber then waits in the ring as the service turn would have, bounded by the next timer and ended by any wake.
     *
     * <p>Threads: called by the fiber itself, on this worker's thread (the runner runs a worker's fibers on its
     * thread only), so it excludes the service turns as any fiber code does; the state is borrowed and given
     * back without anything in between that can park (the enter blocks the OS thread, never parks the fiber).
     * The runner decides whether the fiber may ({@link FiberScheduler#mayTurnInline}): runtime-uring only when no
     * other fiber of the worker is runnable, so the submissions of fibers that run in one loop still go to the
     * kernel together; the simulator on the same condition, though its ring never lets a fiber wait in it.
     *
     * @param key the awaited request's user data ({@link WaiterId#userData()})
     * @return whether a turn was made
     */
    boolean turnInline(long key) {
        if (borrowed || closing || inlineTurnsLeft <= 0 || driver == null) {
            return false;
        }
        // Callbacks queued since the last run (the release of the request this fiber took last) are this
        // worker's to run outside the borrow anyway; run first, they may wake a fiber, which the look below sees.
        runDeferredEntered();
        if (!engine.scheduler().mayTurnInline(this)) {
            return false;
        }
        Driver slab = borrow();
        try {
            Driver.InlineTurn turn = slab.inlineTurnFor(key);
            if (turn == Driver.InlineTurn.NONE) {
                return false;
            }
            boolean wait = turn == Driver.InlineTurn.WAIT;
            long timeoutNanos = 0;
            if (wait) {
                if (!engine.scheduler().fibersMayWaitInRing() || !deferred.isEmpty() || !mailbox.isEmpty()) {
                    return false;
                }
                // Nothing else of this worker can run before the request completes: the runner said no fiber is
                // runnable, and no callback or message is waiting. Parking would only hand the thread to a service
                // turn that waits in the ring for this; the fiber waits there itself, as that turn would: until a
                // completion, the next timer, or a wake — which every party that gives this worker work sends
                // after queueing it (a fiber queued from another thread, a mailbox message, a released permit, an
                // offloaded call's completion), so one queued after the looks above still ends the wait at once.
                long now = Math.max(nowNanos, ring.nowNanos());
                nowNanos = now;
                long next = slab.nextDeadline();
                if (next <= now) {
                    return false; // a timer is due: the service turn fires it
                }
                timeoutNanos = next == Long.MAX_VALUE ? Long.MAX_VALUE : next - now;
            }
            inlineTurnsLeft--;
            slab.stage();
            // A full submission queue can leave requests queued: waiting now would leave them out of the kernel
            // until some completion came, and if every request in flight waits on a peer that says nothing, none
            // would. So the enter only submits, and the fiber's next await makes another turn. And the wait is for
            // the awaited request's completion: one that staging finished instead (its preparation failed: no
            // native memory for its copy) has none coming, and the wait would last until some other completion
            // or wake, for ever if there is none.
            if (wait && (slab.hasQueuedWork() || slab.inlineTurnFor(key) != Driver.InlineTurn.WAIT)) {
                wait = false;
            }
            metrics.entered();
            ring.enter(wait, timeoutNanos, borrowedSink);
            if (wait) {
                nowNanos = Math.max(nowNanos, ring.nowNanos());
            }
            // A completion that asks for another round trip (a short read) was queued again; stage it now, so
            // it goes with the next enter.
            slab.stage();
        } catch (RuntimeException failure) {
            inlineFailure = failure;
        } catch (Error failure) {
            inlineError = failure;
        } finally {
            if (inlineFailure != null || inlineError != null) {
                inlineTurnsLeft = 0; // no more inline turns: the next service turn rethrows it
            }
            unborrow();
        }
        runDeferredEntered();
        return true;
    }

    /**
     * Takes one of the turns a fiber may complete in place before the next service turn, for work that finishes
     * at the call without the ring (a read the page cache answers, {@code EngineBlob}): such a fiber never parks,
     * so without this bound one that keeps reading cached bytes would keep its worker's timers, mailbox and other
     * fibers waiting for as long as it reads. It shares the budget of {@link #turnInline}. Worker's fibers only.
     *
     * @return true if the work may complete in place now; false once the budget is used up, until the next
     *     service turn (the caller then goes through the ring, and parks)
     */
    boolean takeInPlaceTurn() {
        if (inlineTurnsLeft <= 0 || closing) {
            return false;
        }
        inlineTurnsLeft--;
        return true;
    }

    private void rethrowInlineFailure() {
        RuntimeException failure = inlineFailure;
        Error error = inlineError;
        inlineFailure = null;
        inlineError = null;
        if (error != null) {
            throw error;
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** {@link EngineHooks#serviceHalf}: see there. */
    int serviceHalf(int half) {
        if (half != 0 && half != 1) {
            throw new IllegalArgumentException("service half must be 0 or 1, was " + half);
        }
        if (isStranded()) {
            return 0; // as in service(): the state is the stranded fiber's until it resumes
        }
        Worker previous = enter(this);
        try {
            if (half == 0) {
                // As service() begins: a failure of an inline turn since the last turn is this turn's to throw,
                // and the inline turns' budget starts again.
                rethrowInlineFailure();
                inlineTurnsLeft = INLINE_TURNS_PER_SERVICE;
            }
            return Math.max(0, half(half == 0, false, 0));
        } finally {
            enter(previous);
        }
    }

    /**
     * One half of a service turn, on the worker's thread with the worker entered: the first drains the mailbox,
     * fires due timers, stages queued work and runs the deferred callbacks; the second makes one {@code enter}
     * (waiting up to {@code timeoutNanos} if {@code wait}), fires timers, stages again and runs the deferred
     * callbacks. {@link #service} runs both with its wait decided between them; {@link #serviceHalf} runs one.
     *
     * @return the completions reaped (0 in the first half), or -1 if the worker is retired
     */
    private int half(boolean first, boolean wait, long timeoutNanos) {
        if (first) {
            nowNanos = Math.max(nowNanos, ring.nowNanos());
            drainMailbox();
        }
        int reaped = 0;
        Driver slab = borrow();
        try {
            if (slab == null) {
                return -1;
            }
            if (!first) {
                metrics.entered();
                reaped = ring.enter(wait && timeoutNanos > 0, timeoutNanos, borrowedSink);
                nowNanos = Math.max(nowNanos, ring.nowNanos());
            }
            slab.fireTimers(nowNanos);
            slab.stage();
        } finally {
            unborrow();
        }
        runDeferredEntered();
        return reaped;
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
                || (driver != null && driver.nextDeadline() <= nowNanos) || inlineFailure != null
                || inlineError != null;
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

    private void drainMailbox() {
        Mailbox.Message message;
        while ((message = mailbox.poll()) != null) {
            switch (message) {
                case Mailbox.Forward forward -> {
                    Driver slab = borrow();
                    try {
                        if (slab == null) {
                            defer(forward.channel()::closeSender);
                        } else if (closing && slab.isLive(forward.id())) {
                            Object ignored = slab.take(forward.id());
                            if (ignored != null) {
                                @SuppressWarnings("unchecked")
                                dev.lockstep.Poll<Object> result = (dev.lockstep.Poll<Object>) ignored;
                                defer(() -> forward.channel().send(result));
                            } else {
                                slab.close(forward.id(), null, true);
                                defer(forward.channel()::closeSender);
                            }
                        } else {
                            slab.forward(forward.id(), forward.channel());
                        }
                    } finally {
                        unborrow();
                    }
                }
                case Mailbox.Cancel cancel -> {
                    Driver slab = borrow();
                    try {
                        if (slab != null) {
                            slab.close(cancel.id());
                        }
                    } finally {
                        unborrow();
                    }
                }
            }
        }
    }

    /**
     * Retires the worker (ARCHITECTURE.md §3.6): refuses new work, resolves pending observers with
     * {@link ClosedException}, cancels what can be cancelled, waits for every in-flight completion (the kernel
     * may still use those buffers), retires the driver, closes the mailbox (answering queued forwards with
     * {@code Closed}) and the ring. Runs on the worker's own thread.
     */
    public void close() {
        close(null);
    }

    /**
     * {@link #close()} for a runtime whose ring never blocks (the simulator): while in-flight work remains and a
     * turn reaped nothing, {@code onIdle} moves time forward.
     *
     * @param onIdle advances the runtime's clock to its next event, or null to let the ring wait
     */
    public void close(Runnable onIdle) {
        if (isStranded()) {
            // A fiber parked for good inside the critical section (reported when it unmounted): retiring would
            // take the state from under it. The runtime has failed already; refuse new work and leave the rest.
            closing = true;
            return;
        }
        Worker previous = enter(this);
        try {
            closing = true;
            drainMailbox();
            Driver slab = borrow();
            try {
                if (slab == null) {
                    return;
                }
                slab.closeAll();
                slab.stage();
            } finally {
                unborrow();
            }
            runDeferred();
            while (driver.hasRingWork()) {
                int reaped = service(onIdle == null, 10_000_000L);
                if (reaped == 0 && onIdle != null) {
                    onIdle.run();
                }
            }
            drainMailbox();
            mailbox.close();
            drainMailbox();
            borrow();
            try {
                driver.retireAll();
                driver = null;
            } finally {
                unborrow();
            }
            runDeferred();
            buffers.close();
            ring.close();
        } finally {
            enter(previous);
        }
    }

    /**
     * Retires the worker without its ring: what is left when {@link #close()} itself failed, because the ring
     * cannot be drained. New work is refused and the mailbox closed; every pending observer learns
     * {@link ClosedException} (local wakers woken, forwarded and detached channels closed); the ring is torn
     * down; then every request is released — fds and buffers — except the buffers of requests the kernel held
     * when its ring failed: it may still write them while its own teardown runs, so those are left allocated.
     * Runs on the worker's own thread; a failure while closing the ring goes to {@link Engine#fail}.
     */
    public void abandon() {
        Worker previous = enter(this);
        try {
            closing = true;
            mailbox.close();
            drainMailbox();
            Driver slab = borrow();
            try {
                if (slab == null) {
                    return;
                }
                slab.abandonAll();
                driver = null;
            } finally {
                unborrow();
            }
            try {
                ring.close();
            } catch (RuntimeException | Error failure) {
                engine.fail(failure);
            }
            runDeferred();
            buffers.close();
        } finally {
            enter(previous);
        }
    }

    @Override
    public String toString() {
        return "worker " + index;
    }
}
