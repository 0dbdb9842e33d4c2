package dev.lockstep.sim;

import dev.lockstep.engine.task.Fiber;
import dev.lockstep.sim.sched.Scheduler;
import java.util.concurrent.locks.LockSupport;

/**
 * How the simulator tells what a fiber waits on after its step, and the determinism leaks it names: everything
 * that would let a thread the simulator does not own decide what a run does.
 *
 * <h2>What is caught, and when</h2>
 * <ul>
 *   <li>A thread created by a fiber — {@code new Thread(...).start()}, an executor's worker (the first
 *       {@code submit} of a new {@code ExecutorService}), a JDK virtual thread
 *       — is caught <em>when it is created</em>, on the fiber, through an
 *       {@link InheritableThreadLocal} every fiber carries: the JDK asks it for the child's value in the
 *       creating thread. So the verdict and the line named do not depend on how fast the thread then runs:
 *       {@code Thread.join}, {@code Future.get} and {@code BlockingQueue.take} on its work fail the same way on
 *       every run.</li>
 *   <li>Work handed to the common {@code ForkJoinPool} — {@code CompletableFuture.supplyAsync} or
 *       {@code runAsync} without an executor, {@code commonPool().submit}, {@code execute} or {@code invoke} —
 *       whose threads exist already and are not created by the fiber, is caught <em>when it is handed over</em>:
 *       the simulation's carrier thread keeps it in a queue of its own that no pool thread takes from (see
 *       {@link SimCarrier}), and the step's end finds it there. Not caught this way: subtasks forked from such
 *       work, and a parallel stream's forks (its first part runs on the fiber itself); they are caught only when
 *       a pool thread resumes the fiber.</li>
 *   <li>A fiber whose step ended in a timed park ({@code Thread.sleep}, a timed wait), caught by the JDK timer
 *       armed for it ({@link #timedPark}), so the same way whether or not wall-clock time ended the park before
 *       the simulator looked.</li>
 *   <li>A fiber blocked on a monitor in user code, or parked in JDK I/O after its step.</li>
 * </ul>
 *
 * <h2>What is not a leak</h2>
 * A fiber that waits for a lock the JDK takes inside one of its own calls (the lock of a shared
 * {@code PrintStream}, a {@code ConcurrentHashMap} bin) is waiting for another thread's call to return, not for
 * the operating system's schedule: such a lock is never held across user code, so never across an await. This
 * happens when simulations run side by side in one JVM and share an object. The simulator waits for the fiber,
 * in real time, and lets it run on within the same step, so the run's course is the same as if the lock had
 * been free.
 *
 * <p>Nor is a stray unpark: a JDK lock's hand-over may unpark a queued thread after that thread took the lock by
 * retrying, and when the late unpark lands on a fiber that has gone on and parked in Lockstep, a thread outside
 * the simulation schedules the fiber. Such a fiber would only re-check what it waits for and park again, so its
 * continuation is held and scheduled when Lockstep itself wakes the fiber ({@link #parkedInLockstep}; the
 * {@link StepSettler}'s {@code strayToRelease}): the run goes exactly as if the unpark had never come.
 *
 * <p>Thread-safe where it must be: the thread-local's callback runs on whichever thread creates a thread.
 */
final class LeakWatch {

    /** How long the simulator waits for a fiber held up outside it before it calls that a leak. */
    static final long HANDOFF_LIMIT_SECONDS = 30;
    /** How many times one step may be held up outside the simulator before that is called a leak. */
    static final int HANDOFF_LIMIT_TIMES = 1_000;

    /**
     * The simulation whose thread, or whose fiber, the current thread is. Set on the simulator's thread for a
     * run; fibers inherit it; a thread created by any of them gets null and is reported.
     */
    private static final InheritableThreadLocal<Simulation> OWNER = new InheritableThreadLocal<>() {
        @Override
        protected Simulation childValue(Simulation parent) {
            if (parent == null || !parent.isRunning()) {
                return null;
            }
            if (creatingFiber()) {
                return parent;
            }
            if (parent.foreignThreadsAllowed()) {
                return null;
            }
            parent.threadCreatedInStep(threadCreated());
            return null;
        }
    };

    private LeakWatch() {
    }

    /**
     * Where a virtual thread stands after its step, read from the JDK's own state word ({@code VirtualThread.state},
     * through {@link dev.lockstep.engine.task.JdkInternals#fiberState}). {@link Thread#getState}
     * reports three different things as {@code RUNNABLE}: a fiber that yielded, one whose wait was ended by another
     * thread (the wake is done, its continuation is being handed over), and one that was woken while it parked. Only
     * the state word tells them apart, and {@link StepSettler} must: a yield runs as a later step, a wait's end runs on
     * within the step, and a wake whose continuation has not arrived yet must be waited for (reading
     * {@code RUNNABLE} and moving on is how a second simulation's release of a shared lock used to be reported as a
     * leak).
     */
    enum Standing {
        /** Finished, or not started. */
        DONE,
        /** {@code Thread.yield}: its continuation was resubmitted by its carrier, the simulator's thread. */
        YIELDED,
        /** Unparked or unblocked and not yet run again: a continuation for it is, or will be, submitted. */
        WOKEN,
        /** Parked, blocked on a monitor or in {@code Object.wait}: see {@link #classify}. */
        WAITING
    }

    /** Where {@code fiber} (a virtual thread the simulator carries, not running now) stands: see {@link Standing}. */
    static Standing standing(Thread fiber) {
        return switch (dev.lockstep.engine.task.JdkInternals.fiberState(fiber)) {
            case DONE -> Standing.DONE;
            case YIELDED -> Standing.YIELDED;
            case WOKEN -> Standing.WOKEN;
            case WAITING -> Standing.WAITING;
        };
    }

    /**
     * The leak of a fiber whose step ended in a timed park or timed wait ({@code Thread.sleep},
     * {@code LockSupport.parkNanos}, {@code Object.wait(timeout)}, a timed {@code Future.get}), or null. Decided by
     * the JDK's timer the carrier armed as the fiber unmounted, not by the fiber's state: that timer may already
     * have fired (the fiber then reads as runnable, or its continuation is back on the carrier before the step's end
     * is looked at), and the verdict must not depend on how fast it did. Lockstep's own waits are never timed.
     * Only on the simulator's thread, right after the fiber's step.
     */
    static String timedPark(Thread fiber) {
        if (!dev.lockstep.engine.task.JdkInternals.hasParkTimer(fiber)) {
            return null;
        }
        return timedParkLeak(fiber, fiber.getStackTrace());
    }

    private static String timedParkLeak(Thread fiber, StackTraceElement[] stack) {
        return "fiber '" + fiber.getName() + "' is in a timed park (Thread.sleep, LockSupport.parkNanos, a timed"
                + " wait or Future.get with a timeout) that wall-clock time would end" + where(stack)
                + "; use ctx.sleep or ctx.timeout";
    }

    /**
     * Whether {@code fiber} parked in Lockstep ({@code Fibers.await} parks with the operation as its blocker,
     * always one of Lockstep's) and has not run since: true also once it was unparked and before its continuation
     * runs, since the fiber clears its blocker itself when it returns from the park.
     */
    static boolean parkedInLockstep(Thread fiber) {
        if (fiber == null) {
            return false;
        }
        return isLockstepBlocker(LockSupport.getBlocker(fiber));
    }

    /** Whether each class is Lockstep's, worked out once per class: every settled step asks it of a blocker. */
    private static final ClassValue<Boolean> LOCKSTEP_CLASS = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            return type.getName().startsWith("dev.lockstep.");
        }
    };

    /** Whether a fiber parked with this blocker parked in Lockstep (its blockers are all Lockstep's classes). */
    private static boolean isLockstepBlocker(Object blocker) {
        // A fiber's await parks on its Registration nearly every time: that answer needs no class lookup.
        return blocker instanceof dev.lockstep.engine.request.Registration<?>
                || (blocker != null && LOCKSTEP_CLASS.get(blocker.getClass()));
    }

    /** Marks the calling thread as the simulator's thread of {@code simulation}, or clears it. */
    static void own(Simulation simulation) {
        if (simulation == null) {
            OWNER.remove();
        } else {
            OWNER.set(simulation);
        }
    }

    /** Whether the thread being created is one of the engine's own fibers. */
    private static boolean creatingFiber() {
        return dev.lockstep.engine.EngineHooks.creatingFiber();
    }

    /** The message for a thread being created by the calling fiber, naming the kind of thread and the line. */
    private static String threadCreated() {
        StackTraceElement[] stack = new Throwable().getStackTrace();
        String kind = "a thread (Thread.start, Thread.ofPlatform)";
        for (StackTraceElement frame : stack) {
            String type = frame.getClassName();
            if (isUser(type)) {
                break; // what the user called is above this frame; below it is the fiber's own start
            }
            if (type.equals("java.lang.VirtualThread") || type.startsWith("java.lang.ThreadBuilders$Virtual")) {
                kind = "a JDK virtual thread (Thread.ofVirtual, Executors.newVirtualThreadPerTaskExecutor), which the"
                        + " JDK's scheduler runs";
                break;
            }
            if (type.startsWith("java.util.concurrent.CompletableFuture")) {
                kind = "a thread for CompletableFuture's asynchronous work (supplyAsync or runAsync without an"
                        + " executor)";
                break;
            }
            if (type.startsWith("java.util.concurrent.ThreadPoolExecutor")
                    || type.startsWith("java.util.concurrent.ScheduledThreadPoolExecutor")) {
                kind = "an executor's worker thread (ExecutorService.submit or execute)";
                break;
            }
            if (type.startsWith("java.util.concurrent.ForkJoinPool")) {
                kind = "a ForkJoinPool worker thread";
                break;
            }
        }
        Thread creator = Thread.currentThread();
        return (dev.lockstep.engine.task.Fibers.current() != null ? "fiber '" + creator.getName() + "'" : "thread '"
                + creator.getName() + "'") + " created " + kind + where(stack) + ": that thread runs on the operating"
                + " system's schedule, so whatever waits for it (Thread.join, Future.get, BlockingQueue.take, join) or"
                + " reads what it did depends on real time; run the work as a task (ctx.spawn) instead";
    }

    /** The message for work a fiber handed to the common pool during its step (see {@link SimCarrier}). */
    static String pooledWork(Thread fiber, String what) {
        String at = fiber.getState() == Thread.State.TERMINATED ? "" : where(fiber.getStackTrace());
        return "fiber '" + fiber.getName() + "' handed work to the ForkJoinPool common pool (" + what + ")" + at
                + ": its threads run on the operating system's schedule, so whatever waits for the work (join, get)"
                + " or reads what it did depends on real time; run the work as a task (ctx.spawn) instead";
    }

    /** What a fiber that just ran is doing, as far as determinism goes. */
    enum Wait {
        /** Finished, or parked in Lockstep (an await, a sleep), or on a lock or condition of the user's. */
        FINE,
        /** Parked or blocked on a lock the JDK holds only inside one of its calls: wait for it, run on. */
        JDK_LOCK,
        /** A leak: the verdict's message says which. */
        LEAK,
        /** It changed while it was being looked at (another thread woke it): look again. */
        AGAIN
    }

    /**
     * What a fiber waits on after its step.
     *
     * @param kind the verdict
     * @param message the leak's message for {@link Wait#LEAK}, else null
     */
    record Verdict(Wait kind, String message) {
        static final Verdict FINE = new Verdict(Wait.FINE, null);
        static final Verdict AGAIN = new Verdict(Wait.AGAIN, null);
    }

    /**
     * Classifies what {@code fiber} waits on after its step. Cheap when it waits in Lockstep (its state and
     * blocker only); otherwise one stack walk (a walk of a parked virtual thread that was already unparked makes
     * the JDK resubmit its continuation, so it is never walked twice).
     */
    static Verdict classify(Thread fiber, boolean resumedFromOutside) {
        Thread.State state = fiber.getState();
        if (state == Thread.State.RUNNABLE && resumedFromOutside) {
            // Resumed before the simulator looked: its stack still shows where it waited.
            StackTraceElement[] stack = fiber.getStackTrace();
            boolean jdkMonitor = stack.length > 0 && isJdk(stack[0].getClassName())
                    && !stack[0].getClassName().startsWith("java.lang.VirtualThread")
                    && !stack[0].getClassName().startsWith("java.util.concurrent.locks.")
                    && !stack[0].getClassName().startsWith("jdk.internal.misc.");
            return jdkMonitor || jdkLockAcquisition(stack) ? new Verdict(Wait.JDK_LOCK, null) : Verdict.FINE;
        }
        if (state == Thread.State.TERMINATED || state == Thread.State.NEW) {
            return Verdict.FINE;
        }
        if (state == Thread.State.RUNNABLE) {
            // Woken since the caller read its standing, and the continuation not handed over yet.
            return Verdict.AGAIN;
        }
        Object blocker = LockSupport.getBlocker(fiber);
        if (state == Thread.State.WAITING && isLockstepBlocker(blocker)) {
            return Verdict.FINE;
        }
        StackTraceElement[] stack = fiber.getStackTrace();
        if (state == Thread.State.TIMED_WAITING) {
            return new Verdict(Wait.LEAK, timedParkLeak(fiber, stack));
        }
        if (state == Thread.State.BLOCKED) {
            if (stack.length > 0 && isJdk(stack[0].getClassName())) {
                return new Verdict(Wait.JDK_LOCK, null);
            }
            return new Verdict(Wait.LEAK, "fiber '" + fiber.getName() + "' is blocked on a contended monitor"
                    + " (synchronized) that another fiber holds across an await" + where(stack) + "; the JDK's"
                    + " unblocker thread, not the simulator, would resume it: do not hold monitors across awaits");
        }
        String io = blocker == null ? realIo(fiber, stack) : null;
        if (io != null) {
            return new Verdict(Wait.LEAK, io);
        }
        if (jdkLockAcquisition(stack)) {
            return new Verdict(Wait.JDK_LOCK, null);
        }
        return Verdict.FINE;
    }

    /**
     * A lock acquisition (not a condition wait) made inside a JDK call: between the park and the first frame of
     * user code there is an {@code acquire} of a queued synchronizer and no condition {@code await}, and what the
     * user called is not a lock of {@code java.util.concurrent.locks} itself (a user's lock may be held by another
     * fiber across an await: waiting for it is the simulation's business).
     */
    private static boolean jdkLockAcquisition(StackTraceElement[] stack) {
        boolean acquiring = false;
        String called = null;
        for (StackTraceElement frame : stack) {
            String type = frame.getClassName();
            if (isUser(type)) {
                break;
            }
            if (type.startsWith("java.util.concurrent.locks.AbstractQueued")) {
                if (frame.getMethodName().startsWith("await")) {
                    return false;
                }
                if (frame.getMethodName().startsWith("acquire")) {
                    acquiring = true;
                }
            }
            called = type;
        }
        return acquiring && called != null && !called.startsWith("java.util.concurrent.locks.");
    }

    private static boolean isJdk(String type) {
        return type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.");
    }

    /** A fiber parked with no blocker in JDK I/O: Lockstep always parks with one, JDK I/O never does. */
    private static String realIo(Thread fiber, StackTraceElement[] stack) {
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

    /**
     * The message for a fiber held up outside the simulator for longer than {@link #HANDOFF_LIMIT_SECONDS}, or
     * more than {@link #HANDOFF_LIMIT_TIMES} times in one step.
     */
    static String heldUp(Fiber fiber) {
        Thread thread = fiber.thread();
        return "fiber '" + thread.getName() + "' kept waiting (more than " + HANDOFF_LIMIT_SECONDS + " s of real time"
                + " or " + HANDOFF_LIMIT_TIMES + " times in one step) for a thread outside the simulation"
                + where(thread.getStackTrace());
    }

    /** The first frame of user code in a stack: neither the JDK's nor Lockstep's engine or simulator loop. */
    static String where(StackTraceElement[] stack) {
        for (StackTraceElement frame : stack) {
            if (isUser(frame.getClassName())) {
                return ", at " + frame;
            }
        }
        return "";
    }

    private static boolean isUser(String type) {
        return !isJdk(type) && !type.startsWith("dev.lockstep.engine.") && !type.startsWith(LeakWatch.class.getName())
                && !type.startsWith(Simulation.class.getName()) && !RunRecord.isRunFrame(type)
                && !type.startsWith(Scheduler.class.getName());
    }

    /** Why a fiber was resumed from a foreign thread, from that thread's name. */
    static String likelyCause(Thread caller) {
        return switch (dev.lockstep.engine.task.JdkInternals.jdkThread(caller)) {
            case PARK_TIMER -> "a timed park (Thread.sleep, LockSupport.parkNanos, a timed wait or Future.get with a"
                    + " timeout) woke on wall-clock time; use ctx.sleep or ctx.timeout";
            case MONITOR_UNBLOCKER -> "a contended monitor (synchronized) held across an await was released by another"
                    + " fiber; do not hold monitors across awaits";
            case IO_POLLER -> "blocking JDK I/O (a real socket or file channel) completed outside the simulator; use"
                    + " ctx's Network and Storage";
            case OTHER -> "something outside the simulator (another thread, an executor, a JDK timer, real I/O)"
                    + " unparked it";
        };
    }
}
