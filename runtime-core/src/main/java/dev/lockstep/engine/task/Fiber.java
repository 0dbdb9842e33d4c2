package dev.lockstep.engine.task;

import dev.lockstep.ClosedException;
import dev.lockstep.Operation;
import dev.lockstep.TimeoutException;
import dev.lockstep.Waker;
import dev.lockstep.engine.request.Registration;
import dev.lockstep.engine.worker.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * One task's fiber: its virtual thread, home worker, supervision node, abort flag and timeout scopes.
 *
 * <p>The waker is one stable object per fiber, so polling the same operation again never re-retains it.
 * {@link #abort()} may be called from any thread: it sets a volatile flag and unparks the fiber, whose next
 * {@code await} closes what it waited on and throws {@link ClosedException}.
 */
public final class Fiber {
    private final Worker home;
    private final String label;
    private final FiberScheduler scheduler;
    private volatile Thread thread;
    private volatile boolean aborted;
    private final Waker waker = new OwnWaker();

    /**
     * A fiber's own waker: unparks the fiber. Its {@code retain}, {@code willWake} and {@code release} are
     * {@link Waker}'s defaults (itself, identity, nothing), engine code that runs no user code, so a poll may
     * call them inside its worker's critical section ({@link Registration#poll}).
     */
    public final class OwnWaker implements Waker {
        /**
         * The fiber's home worker if the calling thread is the fiber's own thread, else null: what {@link
         * Worker#current()} answers on that thread (TaskFibers.start enters the home worker before the task
         * runs, and a fiber never enters another worker), found without a thread-local lookup. {@code thread} is
         * written before the thread starts (a happens-before edge to everything the thread does), so the fiber's
         * own thread always reads itself; another thread can never read its own thread there.
         */
        public Worker homeIfCalledByItsFiber() {
            return Thread.currentThread() == thread ? home : null;
        }

        @Override
        public void wake() {
            Thread target = thread;
            if (target != null) {
                LockSupport.unpark(target);
                scheduler.woken(home, Fiber.this);
            }
        }
    }
    /**
     * The registration this fiber reuses for the requests it awaits inside one call ({@link #takeReusable}), made
     * at the first such call. Touched only by the fiber itself.
     */
    private Registration<Object> reusable;
    /**
     * Open {@code Clock.timeout} scopes, innermost last; null until the fiber's first scope, since most fibers
     * never open one. Touched only by the fiber itself.
     */
    private List<TimeoutScope> scopes;

    /**
     * Continuations run so far: how many times the fiber was mounted (once to start, once per resumption after a
     * park). Written by the carrier just before each mount, read by the fiber itself on that carrier.
     */
    private int mounts;

    /** The last continuation wrapped by {@link #guarded}, in its wrapper: published whole. */
    private volatile Guarded guarded;

    private record Guarded(Fiber fiber, Runnable continuation) implements Runnable {
        @Override
        public void run() {
            fiber.runContinuation(continuation);
        }
    }

    /**
     * The {@link LiveFibers} this fiber is listed in (null while in none) and its neighbours there, in start order;
     * guarded by that list's lock (another list reads {@code listedIn} only to refuse a fiber that is not its own).
     */
    LiveFibers listedIn;
    Fiber liveBefore;
    Fiber liveAfter;

    /**
     * The simulator's scheduling priority for this fiber (its priority scheduling), 0 until it gives one. Only the
     * simulator's thread reads and writes it (production schedulers never do), so it needs no ordering.
     */
    private long schedulingPriority;

    Fiber(Worker home, String label, FiberScheduler scheduler) {
        this.home = home;
        this.label = label;
        this.scheduler = scheduler;
    }

    /**
     * The continuation to hand to the scheduler: it runs {@code continuation}, then checks that the fiber did not
     * unmount inside its worker's critical section ({@link Worker#borrow()}). The JDK passes the same
     * continuation object every time, so the wrapper is made once.
     *
     * @param continuation the virtual thread's continuation
     * @return the guarded continuation
     */
    Runnable guarded(Runnable continuation) {
        Guarded last = guarded;
        if (last != null && last.continuation == continuation) {
            return last;
        }
        Guarded made = new Guarded(this, continuation);
        guarded = made;
        return made;
    }

    /**
     * Runs one continuation of this fiber on the calling carrier. When it returns the fiber has unmounted (or
     * finished); if it still holds its worker's state, it parked inside the critical section, and the runtime
     * fails with the fiber's stack instead of wedging.
     *
     * @param continuation the continuation
     */
    void runContinuation(Runnable continuation) {
        mounts++;
        continuation.run();
        home.criticalSection().checkUnmounted(this);
    }

    /**
     * The priority a scheduler gave this fiber; 0 until one did. For the simulator's priority scheduling, on its
     * thread only.
     *
     * @return the priority
     */
    public long schedulingPriority() {
        return schedulingPriority;
    }

    /**
     * Gives this fiber a scheduling priority. For the simulator's priority scheduling, on its thread only.
     *
     * @param priority the priority, above 0
     */
    public void schedulingPriority(long priority) {
        this.schedulingPriority = priority;
    }

    void attach(Thread thread) {
        this.thread = thread;
    }

    /**
     * The fiber's virtual thread (for diagnostics: its state and stack).
     *
     * @return the thread, or null before it was created
     */
    public Thread thread() {
        return thread;
    }

    Thread.State threadState() {
        Thread current = thread;
        return current == null ? Thread.State.NEW : current.getState();
    }

    /**
     * The worker that carries this fiber.
     *
     * @return the worker
     */
    public Worker home() {
        return home;
    }

    /**
     * The label of the task.
     *
     * @return the label
     */
    public String label() {
        return label;
    }

    Waker waker() {
        return waker;
    }

    /**
     * How many times this fiber was mounted: 1 once it started, one more per resumption after a park. Read by the
     * fiber itself (diagnostics and tests: a request completed in place costs no mount).
     *
     * @return the count
     */
    public int mounts() {
        return mounts;
    }

    /**
     * Lends the fiber's reusable registration ({@link Registration#reusable}) to a call that admits one request,
     * awaits it and closes it before it returns ({@link Registration#awaitAndClose}); {@link Registration#giveBack}
     * ends the loan. Null while another call has it — a call nested in a call (a callback run during an inline
     * turn that itself waits), which then makes an operation of its own. Only on this fiber.
     *
     * @return the idle registration, now lent, or null
     */
    public Registration<Object> takeReusable() {
        Registration<Object> registration = reusable;
        if (registration == null) {
            registration = Registration.reusable(home);
            reusable = registration;
        }
        return registration.lend() ? registration : null;
    }

    /**
     * Whether the fiber's task was aborted.
     *
     * @return true once aborted
     */
    public boolean isAborted() {
        return aborted;
    }

    void abort() {
        aborted = true;
        waker.wake();
        // A fiber waiting in its worker's ring itself (InlineTurns.turn, where the runner lets fibers wait in the
        // ring) is mounted, so the unpark above only leaves it a permit: the ring's wait must end too, or the abort
        // waits for the request to complete, which may be never (a receive from a silent peer). The flag is written
        // before the wake, and the fiber reads it after its wait returns, so the abort is seen. Elsewhere the wake
        // would cost a spurious turn, and the simulator never lets a fiber wait.
        if (scheduler.fibersMayWaitInRing() && Worker.current() != home) {
            home.nudge();
        }
    }

    void checkAbort(Operation<?> waitingOn) {
        if (aborted) {
            waitingOn.close();
            throw new ClosedException("task '" + label + "' was aborted");
        }
    }

    /** An expired timeout scope closes what the fiber waits on; checked only while it is still pending. */
    void checkTimeouts(Operation<?> waitingOn) {
        List<TimeoutScope> scopes = this.scopes;
        if (scopes == null) {
            return;
        }
        for (int i = 0; i < scopes.size(); i++) {
            if (scopes.get(i).expired) {
                waitingOn.close();
                throw scopes.get(i).failure();
            }
        }
    }

    public TimeoutScope openScope(long durationNanos, Operation<Void> timer) {
        TimeoutScope scope = new TimeoutScope(durationNanos, timer);
        if (scopes == null) {
            scopes = new ArrayList<>(2);
        }
        scopes.add(scope);
        return scope;
    }

    public void closeScope(TimeoutScope scope) {
        scopes.remove(scope);
        scope.timer.close();
    }

    /** One {@code Clock.timeout} scope: its timer wakes the fiber and marks it expired. */
    public final class TimeoutScope implements Waker {
        private final long durationNanos;
        final Operation<Void> timer;
        volatile boolean expired;

        TimeoutScope(long durationNanos, Operation<Void> timer) {
            this.durationNanos = durationNanos;
            this.timer = timer;
        }

        TimeoutException failure() {
            return new TimeoutException("timeout of " + java.time.Duration.ofNanos(durationNanos) + " expired in task '"
                    + label + "'");
        }

        @Override
        public void wake() {
            expired = true;
            waker.wake();
        }
    }
}
