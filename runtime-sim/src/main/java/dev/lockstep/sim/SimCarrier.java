package dev.lockstep.sim;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The thread a simulation runs on: its loop, and every fiber it carries. {@link SimRunner} hands each run to the
 * calling thread's carrier and waits for it on the caller's thread, which buys two things the caller's own thread
 * could not give.
 *
 * <h2>Work handed to the common pool stays here</h2>
 * The carrier is a {@link ForkJoinWorkerThread} of {@link ForkJoinPool#commonPool()} that never joins the pool's
 * work: it is not registered with the pool, so no pool worker ever scans its queue. The JDK decides by the
 * <em>carrier</em> of a virtual thread whether a submission to a pool is internal, so a fiber's
 * {@code CompletableFuture.supplyAsync(...)}, {@code runAsync(...)}, {@code commonPool().submit(...)} or
 * {@code execute(...)} is pushed onto this thread's own queue, synchronously, within the fiber's step — where no
 * pool thread can take it, however fast the pool is. After each step the simulator looks at the queue
 * ({@link #pooledWork}): anything there is a determinism leak, named the same way on every run of the seed. (Work
 * the fiber forks from inside such a task, or hands to another pool, is not covered by this; another pool's
 * threads are caught when the fiber creates them, see {@link LeakWatch}.)
 *
 * <h2>Interrupts reach the run</h2>
 * The JDK clears a carrier's interrupt status each time it mounts a virtual thread, so an interrupt of the
 * thread that carries the fibers can be lost. The caller's thread carries none: it waits for the carrier, and an
 * interrupt of it (a test's timeout, a caller's deadline) is handed to the simulation as a flag the loop reads
 * before every step ({@link Simulation#interrupt()}); the run then aborts every task and {@code start} throws
 * {@code AbortedException}, the caller's interrupt status set again. A run stuck where the loop never gets back
 * (a fiber spinning) is left behind after {@link #INTERRUPT_GRACE}, named.
 *
 * <h2>One carrier per calling thread, reused</h2>
 * A short run (a small test of a sweep) costs about as much as starting a thread, so a platform thread that calls
 * {@code start} again and again keeps its carrier: after a run the carrier parks, idle, until its caller hands it
 * the next run, and ends after {@link #IDLE_LIMIT} without one. It is a daemon thread, so an idle carrier never
 * keeps the JVM alive; when the caller's thread ends, its carrier is reachable by nobody that could hand it a run,
 * and it ends at the limit. A caller that is a virtual thread gets a carrier for each run (virtual threads are
 * many and short-lived; each would keep a platform thread idle).
 *
 * <p>A carrier is reused only where a fresh one would run the next simulation the same way. Each run sets what a
 * new thread would take from its caller at that moment: the name (which says the seed), the priority and the
 * context class loader. A carrier is retired (it ends; the next run gets a new one) when the run was interrupted
 * or left behind, when its own queue still holds pooled work, when its interrupt status is set (idle too), when its
 * uncaught-exception handler was changed, or when its thread-local maps hold anything beyond entries that read as
 * absent. The simulator's own thread-locals on the carrier leave only such entries ({@code LeakWatch}'s owner is
 * removed at the end of the run, the engine's current worker restored to null); other code that ran on the
 * carrier itself (a waker's callback, or JDK code that keeps a per-carrier value for the fibers it carries) may
 * leave more. The JDK
 * leaves one such value in a path of the simulator's own: the replay line of a {@link SimulationFailure} looks up
 * SHA-256, and {@code java.security} keeps the lookup's key in a thread-local, so the carrier of a run that failed
 * that way is retired (a JDK cache is not told apart from a value that would change a run). A caller
 * whose inheritable thread-locals hold a value gets a carrier for the run, as a new thread copies those values
 * from its creator when it is made. Fibers have thread-locals of their own and leave nothing on the carrier. Not
 * checked: a {@code java.util.concurrent} lock taken by code on the carrier thread itself and never released (the
 * JVM finds the locks a thread owns only by walking the heap); a fresh carrier would leave such a lock held by a
 * dead thread, a reused one holds it still. Lockstep's own code releases every such lock it takes in a
 * {@code finally}.
 *
 * <h2>The handoff</h2>
 * A run is a {@link Job}, handed from the caller to the carrier through {@link #slot} (null: idle; a job: running
 * it; {@link #RETIRED}: takes no more). The caller hands a run over by a compare-and-set from null to the job, then
 * unparks the carrier; a new carrier gets its first job before {@link Thread#start()}. Only the carrier's own
 * caller thread ever hands it a job (the carrier sits in that thread's {@link #IDLE} slot), one at a time, as
 * {@code start} waits for its run. The carrier, idle, ends by a compare-and-set from null to {@link #RETIRED}, so a
 * handoff and the idle limit cannot both win: the caller whose compare-and-set fails starts a new carrier.
 *
 * <p>What is published to whom: the job's fields and everything the caller's thread prepared for the run (the
 * {@link Simulation}) reach the carrier through the slot's volatile write (the compare-and-set) and the carrier's
 * volatile read of it, or through {@code Thread.start}; the run's result, its failure, whether the carrier may be
 * reused, and everything the run left in the simulation (its digest, stats and leaks, read by {@link SimRunner}
 * afterwards) reach the caller through the job's volatile {@link Job#done}, written after all of them and read by
 * the caller before it reads any of them. No wake-up is lost: each side parks only after it read the volatile it
 * waits on (the slot, {@code done}, or the {@link #retire} flag) and found nothing, and the other side writes that
 * volatile before it unparks the waiting thread, so either the read sees the write or the unpark comes after the
 * read, and then the park returns at once (an unpark before a park leaves a permit). A park that returns for
 * another reason (a permit left by an earlier unpark) only makes the waiter read again. Such permits can be left
 * behind: on the carrier by a handoff it did not need to wait for, which may end one later park of the run's own
 * real-time waits early (those wait for a condition in a loop, as every park must allow, so the run is the same);
 * on the caller by the end of a run it saw before it parked, which may end one later park of the caller's own code
 * early, as {@link LockSupport#park()} allows.
 */
final class SimCarrier extends ForkJoinWorkerThread {

    /** How long the caller waits, after an interrupt, for a simulation whose loop does not get back. */
    static final Duration INTERRUPT_GRACE = Duration.ofSeconds(10);

    /** How long an idle carrier waits for its caller's next run before it ends. */
    static final Duration IDLE_LIMIT = Duration.ofSeconds(3);

    /** The calling thread's carrier, idle between its runs, or null; only that thread hands it a run. */
    private static final ThreadLocal<SimCarrier> IDLE = new ThreadLocal<>();

    /** In {@link #slot}: this carrier takes no more runs, and ends (or has ended). */
    private static final Job RETIRED = new Job(null, "", null);

    private static final VarHandle SLOT;

    static {
        try {
            SLOT = MethodHandles.lookup().findVarHandle(SimCarrier.class, "slot", Job.class);
        } catch (ReflectiveOperationException impossible) {
            throw new ExceptionInInitializerError(impossible);
        }
    }

    /** Null while idle, the job while it runs, {@link #RETIRED} once it takes no more: see the class comment. */
    private volatile Job slot;
    /**
     * Set by the caller that will not hand this carrier another run (its run was interrupted, or the caller is a
     * virtual thread), before it unparks the carrier: the carrier then ends instead of waiting, idle, for a run.
     */
    private volatile boolean retire;
    /** The uncaught-exception handler the carrier was made with; a run that changed it retires the carrier. */
    private final Thread.UncaughtExceptionHandler handlerAtStart;

    private SimCarrier(Job first, boolean singleUse) {
        super(null, ForkJoinPool.commonPool(), true);
        setDaemon(true);
        this.slot = first;
        this.retire = singleUse;
        this.handlerAtStart = getUncaughtExceptionHandler();
    }

    /** One run handed to a carrier, and what it returned or threw. */
    private static final class Job {
        final Supplier<?> body;
        final String name;
        final Thread caller;
        /** What a new thread made by the caller now would take from it. */
        final int priority;
        final ClassLoader contextLoader;
        /** Written by the carrier before {@link #done}; read by the caller after it read {@code done} true. */
        Object result;
        Throwable failure;
        boolean reusable;
        /** Set by the carrier once the run ended and the fields above hold its result: see the class comment. */
        volatile boolean done;

        Job(Supplier<?> body, String name, Thread caller) {
            this.body = body;
            this.name = name;
            this.caller = caller;
            this.priority = caller == null ? Thread.NORM_PRIORITY : caller.getPriority();
            this.contextLoader = caller == null ? null : caller.getContextClassLoader();
        }
    }

    @Override
    public void run() {
        Job job = slot; // set before start, which publishes it
        while (job != null) {
            try {
                // What a new thread would take from the caller now (Thread's constructor: the parent's priority,
                // within the group's limit, and its context class loader); the name says the seed.
                setName(job.name);
                int priority = Math.min(job.priority, getThreadGroup().getMaxPriority());
                if (getPriority() != priority) {
                    setPriority(priority);
                }
                setContextClassLoader(job.contextLoader);
                job.result = job.body.get();
            } catch (Throwable thrown) {
                job.failure = thrown;
            }
            boolean reusable = false;
            try {
                reusable = !retire && fitForAnotherRun();
            } finally {
                // Whatever the check threw, the caller gets its run's end, and this carrier ends.
                job.reusable = reusable;
                slot = reusable ? null : RETIRED; // only this thread writes the slot while it holds a job
                job.done = true;
                LockSupport.unpark(job.caller);
            }
            // Not job = nextJob(): the finished job (its simulation, its result) would stay reachable from this frame
            // while the carrier waits, idle, after its caller has dropped the runner.
            job = null;
            if (reusable) {
                job = nextJob();
            }
        }
    }

    /** Waits, idle, for the caller's next run: the job, or null once retired or after {@link #IDLE_LIMIT}. */
    private Job nextJob() {
        long deadline = System.nanoTime() + IDLE_LIMIT.toNanos();
        while (true) {
            Job next = slot;
            if (next != null) {
                return next; // a job: the caller's compare-and-set from null, the only other write
            }
            long left = deadline - System.nanoTime();
            // Interrupted while idle: retired, as after a run (and parkNanos would return at once, every turn, until
            // the limit).
            boolean end = retire || left <= 0 || isInterrupted();
            if (end && SLOT.compareAndSet(this, null, RETIRED)) {
                return null;
            }
            if (!end) {
                LockSupport.parkNanos(this, left);
            }
            // else the compare-and-set failed: a job came, read it on the next turn.
        }
    }

    /**
     * Whether the next run on this carrier would go as on a new one: nothing the run left on the thread can reach
     * it (see the class comment). On the carrier, after a run.
     */
    private boolean fitForAnotherRun() {
        return getQueuedTaskCount() == 0 && !isInterrupted() && getUncaughtExceptionHandler() == handlerAtStart
                && ThreadLocals.holdNothing(this, false) && ThreadLocals.holdNothing(this, true);
    }

    /**
     * What a fiber handed to the common pool during the step that just ran, or null if nothing: the first such task
     * is taken off this thread's queue and named. On the carrier only (the queue is its own; nobody else takes from
     * it, so the answer is the same on every run of the seed).
     */
    String pooledWork() {
        if (getQueuedTaskCount() == 0) {
            return null;
        }
        java.util.concurrent.ForkJoinTask<?> task = PoolAccess.takeOwn();
        String type = task == null ? "" : task.getClass().getName();
        return switch (type) {
            case "java.util.concurrent.CompletableFuture$AsyncSupply" ->
                    "CompletableFuture.supplyAsync without an executor";
            case "java.util.concurrent.CompletableFuture$AsyncRun" -> "CompletableFuture.runAsync without an executor";
            default -> type.startsWith("java.util.concurrent.CompletableFuture")
                    ? "an asynchronous CompletableFuture stage without an executor"
                    : "a task for ForkJoinPool.commonPool() (submit, execute or invoke)";
        };
    }

    /** The simulation's carrier if the calling thread is one, else null (on a fiber too: a fiber is its own thread). */
    static SimCarrier current() {
        return Thread.currentThread() instanceof SimCarrier carrier ? carrier : null;
    }

    /**
     * Runs {@code body} on the calling thread's carrier (a new one if it has none, or none it may reuse) and returns
     * what it returned, or throws what it threw. An interrupt of the calling thread is passed to
     * {@code simulation}; the interrupt status is set again before this returns or throws.
     */
    @SuppressWarnings("unchecked")
    static <T> T run(Simulation simulation, String name, Supplier<T> body) {
        Thread caller = Thread.currentThread();
        Job job = new Job(body, name, caller);
        boolean keepable = !caller.isVirtual() && ThreadLocals.holdNothing(caller, true);
        SimCarrier carrier = keepable ? IDLE.get() : null;
        if (carrier == null || !carrier.offer(job)) {
            carrier = new SimCarrier(job, !keepable);
            carrier.start();
            if (keepable) {
                IDLE.set(carrier);
            }
        }
        boolean interrupted = false;
        long giveUpAt = 0;
        while (!job.done) {
            if (Thread.interrupted() && !interrupted) {
                interrupted = true;
                giveUpAt = System.nanoTime() + INTERRUPT_GRACE.toNanos();
                simulation.interrupt();
            }
            if (!interrupted) {
                LockSupport.park(carrier);
            } else {
                long left = giveUpAt - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                LockSupport.parkNanos(carrier, left);
            }
        }
        if (interrupted || !job.reusable) {
            // A carrier unfit for another run has ended or is ending; an interrupted run's is not reused either,
            // whether or not the run stopped in time.
            if (keepable && IDLE.get() == carrier) {
                IDLE.remove();
            }
            carrier.retire();
        }
        if (interrupted) {
            caller.interrupt();
            if (!job.done) {
                throw new dev.lockstep.AbortedException("Runner.start was interrupted: every task was aborted, but"
                        + " the simulation did not stop within " + INTERRUPT_GRACE.toSeconds() + " s; its thread '"
                        + name + "' was left running" + simulation.stuckAt());
            }
        }
        if (job.failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (job.failure instanceof Error error) {
            throw error;
        }
        if (job.failure != null) {
            throw new IllegalStateException(job.failure);
        }
        return (T) job.result;
    }

    /** Hands {@code job} to this idle carrier; false if it retired (then it takes no more). The caller's thread. */
    private boolean offer(Job job) {
        // An interrupt that reached the idle carrier would reach the run, where a new carrier would have none: such a
        // carrier takes no more runs and retires itself (nextJob).
        if (isInterrupted() || !SLOT.compareAndSet(this, null, job)) {
            return false;
        }
        LockSupport.unpark(this);
        return true;
    }

    /** Makes this carrier end once it is idle, or now if it is. The caller's thread. */
    private void retire() {
        retire = true;
        LockSupport.unpark(this);
    }

    /** The calling thread's carrier that its next run would be handed to, or null: for tests. */
    static Thread idleCarrier() {
        SimCarrier carrier = IDLE.get();
        return carrier != null && carrier.slot == null ? carrier : null;
    }

    /** See {@link ThreadLocals#holdNothing}: for tests. */
    static boolean threadLocalsHoldNothing(Thread thread, boolean inheritable) {
        return ThreadLocals.holdNothing(thread, inheritable);
    }

    /**
     * Reads a thread's thread-local maps, which {@code java.lang} keeps to itself (through
     * {@link dev.lockstep.engine.task.JdkInternals}; where this JDK does not let them be read, nothing is reused). Only
     * the thread that owns the maps reads them: the carrier its own after a run, the caller its own before one.
     */
    private static final class ThreadLocals {
        private ThreadLocals() {
        }

        /**
         * Whether {@code thread}'s map (its inheritable one, or the other) holds nothing that a thread without the
         * map would not see: every entry is a plain {@link ThreadLocal} or {@link InheritableThreadLocal} (initial
         * value null, a child's value its parent's) holding null, or one whose thread-local is gone (no code can
         * reach its value). The calling thread's own maps only.
         */
        static boolean holdNothing(Thread thread, boolean inheritable) {
            if (!dev.lockstep.engine.task.JdkInternals.threadLocalsReadable()) {
                return false;
            }
            Object[] entries = dev.lockstep.engine.task.JdkInternals.threadLocalEntries(thread, inheritable);
            if (entries == null) {
                return true;
            }
            for (Object entry : entries) {
                if (entry == null) {
                    continue;
                }
                Object key = ((java.lang.ref.Reference<?>) entry).get();
                if (key == null) {
                    continue;
                }
                Class<?> type = key.getClass();
                if (dev.lockstep.engine.task.JdkInternals.threadLocalValue(entry) != null
                        || (type != ThreadLocal.class && type != InheritableThreadLocal.class)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Reaches {@link java.util.concurrent.ForkJoinTask#pollTask()}, which only a subclass may call. */
    private abstract static class PoolAccess extends java.util.concurrent.ForkJoinTask<Void> {
        private static final long serialVersionUID = 1L;

        /** Called only when this carrier's own queue holds a task: then that is the one taken, not a stolen one. */
        static java.util.concurrent.ForkJoinTask<?> takeOwn() {
            return pollTask();
        }
    }
}
