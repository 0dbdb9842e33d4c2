package dev.lockstep.engine.task;

import dev.lockstep.UnsupportedJdkException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InaccessibleObjectException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;

/**
 * Every member of the JDK's internals that Lockstep touches, and the only class that touches them. The JDK has no
 * public API for these; each is reached through the {@code java.lang} package that {@link #REQUIRED_FLAG} opens:
 *
 * <ul>
 *   <li>{@code java.lang.ThreadBuilders$VirtualThreadBuilder(Executor)}: a virtual-thread builder whose
 *       continuations run on a given scheduler (the hook the JDK's own tests use). Every runtime needs it: it is
 *       how a fiber runs on a Lockstep worker.</li>
 *   <li>{@code java.lang.VirtualThread}'s {@code state} word, its state constants and its {@code timeoutTask}: the
 *       simulator reads them after each step of a fiber to tell a yield from a wake and to catch timed parks.
 *       Only the simulator needs them.</li>
 *   <li>{@code Thread.currentCarrierThread()}: which worker's thread a fiber runs on, which an io_uring ring asks
 *       of every caller (the kernel binds it to one thread). Every runtime needs it with the hook above.</li>
 *   <li>{@code Thread.threadLocals}, {@code Thread.inheritableThreadLocals}, {@code ThreadLocal$ThreadLocalMap.table}
 *       and its entries' {@code value}: whether a simulator carrier thread holds nothing and can be reused;
 *       without them every run gets a new carrier.</li>
 *   <li>The names of the JDK's own threads that wake virtual threads ({@link #jdkThread}): only the wording of
 *       the simulator's message about a fiber woken from outside depends on them.</li>
 * </ul>
 *
 * <p>All of them are resolved once, when this class is initialized; nothing is thrown then. {@link #checkFibers()}
 * (every engine, at start-up) and {@link #checkFiberStates()} (the simulator, at start-up) are the self-test: they
 * throw when a member they need is unusable, with a message that says which of two things happened. When java.base
 * does not open {@code java.lang} to Lockstep the message names the missing flag; when the flag is there but this
 * JDK no longer has the member (a JDK that renamed or removed it), an {@link UnsupportedJdkException} names the
 * member and this JDK's version, and no flag is blamed. The optional members' absence is logged once, at warning
 * level, in the same words.
 *
 * <p>Threads: every method may be called from any thread; the resolved members are immutable.
 */
public final class JdkInternals {
    /** The JVM flag that opens the JDK's {@code java.lang} package to Lockstep. */
    public static final String REQUIRED_FLAG = "--add-opens java.base/java.lang=ALL-UNNAMED";

    private static final Members MEMBERS = Members.resolve(Finder.JDK);
    // The handles the simulator reads after every fiber step and a ring on every call, in static finals: the JIT
    // takes those as constants and inlines the access, which it does not do for a handle in an instance field.
    private static final MethodHandle CURRENT_CARRIER = MEMBERS.currentCarrier;
    private static final VarHandle VIRTUAL_STATE = MEMBERS.virtualState;
    private static final VarHandle VIRTUAL_TIMEOUT_TASK = MEMBERS.virtualTimeoutTask;
    private static final int STATE_MASK = ~MEMBERS.stateSuspended;
    private static final int STATE_YIELDED = MEMBERS.stateYielded;
    private static final int STATE_UNPARKED = MEMBERS.stateUnparked;
    private static final int STATE_UNBLOCKED = MEMBERS.stateUnblocked;
    private static final int STATE_TERMINATED = MEMBERS.stateTerminated;
    private static final int STATE_NEW = MEMBERS.stateNew;
    private static final VarHandle THREAD_LOCALS = MEMBERS.threadLocals;
    private static final VarHandle INHERITABLE_THREAD_LOCALS = MEMBERS.inheritableThreadLocals;
    private static final VarHandle MAP_TABLE = MEMBERS.mapTable;
    private static final VarHandle ENTRY_VALUE = MEMBERS.entryValue;

    static {
        MEMBERS.logOptionalProblems();
    }

    private JdkInternals() {
    }

    /**
     * The start-up self-test of what every runtime needs: the scheduler hook of fibers and their carrier.
     *
     * @throws UnsupportedJdkException naming the member and the JDK version, if this JDK does not have it
     * @throws IllegalStateException naming {@link #REQUIRED_FLAG}, if the member exists but is not opened
     */
    public static void checkFibers() {
        MEMBERS.checkFibers();
    }

    /**
     * The start-up self-test of what the simulator also needs: a fiber's state word and timer.
     *
     * @throws UnsupportedJdkException naming the member and the JDK version, if this JDK does not have it
     * @throws IllegalStateException naming {@link #REQUIRED_FLAG}, if the member exists but is not opened
     */
    public static void checkFiberStates() {
        MEMBERS.checkFiberStates();
    }

    /**
     * A virtual-thread builder whose continuations run on {@code scheduler}.
     *
     * @param scheduler receives every continuation of the threads built
     * @return the builder
     * @throws IllegalStateException as {@link #checkFibers()}
     */
    public static Thread.Builder.OfVirtual virtualThreadBuilder(Executor scheduler) {
        MEMBERS.checkFibers();
        try {
            return (Thread.Builder.OfVirtual) MEMBERS.builderConstructor.newInstance(scheduler);
        } catch (ReflectiveOperationException failure) {
            throw new IllegalStateException("cannot build a Lockstep fiber: " + failure, failure);
        }
    }

    /**
     * The platform thread the calling code runs on: the caller itself, or a virtual thread's carrier.
     *
     * @return the carrier, or null on a virtual thread if this JDK does not say (then {@link #checkFibers()} fails)
     */
    public static Thread currentCarrierThread() {
        Thread current = Thread.currentThread();
        if (!current.isVirtual()) {
            return current;
        }
        if (CURRENT_CARRIER == null) {
            return null;
        }
        try {
            return (Thread) CURRENT_CARRIER.invokeExact();
        } catch (Throwable unexpected) {
            return null;
        }
    }

    /** Where a virtual thread stands between two of its runs, from the JDK's state word. */
    public enum FiberState {
        /** Finished, or not started. */
        DONE,
        /** Yielded: its carrier resubmitted its continuation. */
        YIELDED,
        /** Unparked or unblocked and not yet run again. */
        WOKEN,
        /** Parked, blocked on a monitor, or in {@code Object.wait}. */
        WAITING
    }

    /**
     * Where {@code fiber}, a virtual thread not running now, stands.
     *
     * @param fiber a virtual thread
     * @return its state
     * @throws IllegalStateException as {@link #checkFiberStates()}
     */
    public static FiberState fiberState(Thread fiber) {
        if (VIRTUAL_STATE == null) {
            MEMBERS.checkFiberStates();
        }
        int state = (int) VIRTUAL_STATE.getVolatile(fiber) & STATE_MASK;
        if (state == STATE_TERMINATED || state == STATE_NEW) {
            return FiberState.DONE;
        }
        if (state == STATE_YIELDED) {
            return FiberState.YIELDED;
        }
        if (state == STATE_UNPARKED || state == STATE_UNBLOCKED) {
            return FiberState.WOKEN;
        }
        return FiberState.WAITING;
    }

    /**
     * Whether {@code fiber} has the JDK's timer of a timed park or timed wait armed: set by its carrier as it
     * unmounts from one, cleared when it runs again.
     *
     * @param fiber a virtual thread
     * @return true while such a timer is armed
     * @throws IllegalStateException as {@link #checkFiberStates()}
     */
    public static boolean hasParkTimer(Thread fiber) {
        if (VIRTUAL_TIMEOUT_TASK == null) {
            MEMBERS.checkFiberStates();
        }
        return VIRTUAL_TIMEOUT_TASK.get(fiber) != null;
    }

    /** Which of the JDK's own threads a thread is, as far as waking a virtual thread goes. */
    public enum JdkThread {
        /** The timer thread that ends timed parks and timed waits ({@code VirtualThread-unparker}). */
        PARK_TIMER,
        /** The thread that resumes a virtual thread blocked on a monitor ({@code VirtualThread-unblocker}). */
        MONITOR_UNBLOCKER,
        /** A thread that completes blocking JDK I/O ({@code Read-Poller}, {@code Write-Poller}). */
        IO_POLLER,
        /** Any other thread. */
        OTHER
    }

    /**
     * Which of the JDK's own threads {@code thread} is, from its name: the JDK names these threads but promises
     * nothing about the names, so a name this JDK changed reads as {@link JdkThread#OTHER}. Only for messages.
     *
     * @param thread any thread
     * @return its kind
     */
    public static JdkThread jdkThread(Thread thread) {
        String name = thread.getName();
        if (name.contains("unparker")) {
            return JdkThread.PARK_TIMER;
        }
        if (name.contains("unblocker")) {
            return JdkThread.MONITOR_UNBLOCKER;
        }
        if (name.contains("Poller") || name.contains("poller")) {
            return JdkThread.IO_POLLER;
        }
        return JdkThread.OTHER;
    }

    /**
     * Whether {@link #threadLocalEntries} can read thread-local maps on this JDK.
     *
     * @return true if it can
     */
    public static boolean threadLocalsReadable() {
        return THREAD_LOCALS != null;
    }

    /**
     * The entries of {@code thread}'s thread-local map (or of its inheritable one): each null or a
     * {@link java.lang.ref.Reference} to its {@link ThreadLocal}, whose value {@link #threadLocalValue} reads. Only
     * the thread that owns the map may call this.
     *
     * @param thread the calling thread
     * @param inheritable the inheritable map rather than the other
     * @return the entries, or null when the thread has no such map
     * @throws IllegalStateException if {@link #threadLocalsReadable()} is false
     */
    public static Object[] threadLocalEntries(Thread thread, boolean inheritable) {
        if (THREAD_LOCALS == null) {
            throw new IllegalStateException("thread-local maps are not readable on this JDK");
        }
        Object map = inheritable ? INHERITABLE_THREAD_LOCALS.get(thread) : THREAD_LOCALS.get(thread);
        return map == null ? null : (Object[]) MAP_TABLE.get(map);
    }

    /**
     * The value an entry of {@link #threadLocalEntries} holds.
     *
     * @param entry a non-null entry
     * @return its value
     */
    public static Object threadLocalValue(Object entry) {
        return ENTRY_VALUE.get(entry);
    }

    /**
     * How the JDK's internals are looked up: the JDK's reflection, or in tests one that lacks a member. Each method
     * throws {@link ReflectiveOperationException} when the member does not exist and
     * {@link InaccessibleObjectException} or {@link IllegalAccessException} when it is not opened.
     */
    interface Finder {
        Class<?> type(String name) throws ReflectiveOperationException;

        Constructor<?> constructor(Class<?> type, Class<?>... parameters) throws ReflectiveOperationException;

        VarHandle field(Class<?> type, String name, Class<?> fieldType) throws ReflectiveOperationException;

        MethodHandle staticMethod(Class<?> type, String name, MethodType methodType)
                throws ReflectiveOperationException;

        int staticInt(Class<?> type, String name) throws ReflectiveOperationException;

        Finder JDK = new Finder() {
            @Override
            public Class<?> type(String name) throws ClassNotFoundException {
                return Class.forName(name, false, Thread.class.getClassLoader());
            }

            @Override
            public Constructor<?> constructor(Class<?> type, Class<?>... parameters) throws NoSuchMethodException {
                Constructor<?> constructor = type.getDeclaredConstructor(parameters);
                constructor.setAccessible(true);
                return constructor;
            }

            @Override
            public VarHandle field(Class<?> type, String name, Class<?> fieldType)
                    throws ReflectiveOperationException {
                return MethodHandles.privateLookupIn(type, MethodHandles.lookup()).findVarHandle(type, name, fieldType);
            }

            @Override
            public MethodHandle staticMethod(Class<?> type, String name, MethodType methodType)
                    throws ReflectiveOperationException {
                return MethodHandles.privateLookupIn(type, MethodHandles.lookup()).findStatic(type, name, methodType);
            }

            @Override
            public int staticInt(Class<?> type, String name) throws ReflectiveOperationException {
                Field field = type.getDeclaredField(name);
                field.setAccessible(true);
                return field.getInt(null);
            }
        };
    }

    /**
     * Why a member could not be used.
     *
     * @param member the member, as {@code java.lang.VirtualThread.state}
     * @param purpose what Lockstep uses it for, as a clause: "Lockstep runs fibers on its workers"
     * @param missing true when the JDK does not have it, false when it is not opened
     * @param cause the reflective failure
     */
    record Problem(String member, String purpose, boolean missing, Throwable cause) {
        IllegalStateException exception() {
            if (missing) {
                return new UnsupportedJdkException(member, Runtime.version().toString(), purpose, cause);
            }
            return new IllegalStateException(purpose + " through " + member + ", which java.base does"
                    + " not open to it: start the JVM with " + REQUIRED_FLAG + " (this is Java " + Runtime.version()
                    + "): " + cause, cause);
        }
    }

    /** The resolved members (null where one could not be resolved) and why each missing one is missing. */
    static final class Members {
        final Constructor<?> builderConstructor;
        final MethodHandle currentCarrier;
        final VarHandle virtualState;
        final VarHandle virtualTimeoutTask;
        final int stateYielded;
        final int stateUnparked;
        final int stateUnblocked;
        final int stateTerminated;
        final int stateNew;
        final int stateSuspended;
        final VarHandle threadLocals;
        final VarHandle inheritableThreadLocals;
        final VarHandle mapTable;
        final VarHandle entryValue;
        final Problem fibersProblem;
        final Problem statesProblem;
        final List<Problem> optionalProblems;

        private Members(Resolver r) {
            String fibers = "Lockstep runs fibers on its workers";
            builderConstructor = r.resolve("java.lang.ThreadBuilders$VirtualThreadBuilder(java.util.concurrent.Executor)",
                    fibers, f -> f.constructor(f.type("java.lang.ThreadBuilders$VirtualThreadBuilder"), Executor.class));
            currentCarrier = r.resolve("java.lang.Thread.currentCarrierThread()",
                    "Lockstep tells which worker's thread a fiber runs on (an io_uring ring takes calls from its own worker's"
                            + " fibers only)",
                    f -> f.staticMethod(Thread.class, "currentCarrierThread", MethodType.methodType(Thread.class)));
            fibersProblem = r.takeProblem();

            String states = "Lockstep's simulator tells a yielded fiber from a woken one";
            String virtual = "java.lang.VirtualThread";
            virtualState = r.resolve(virtual + ".state", states, f -> f.field(f.type(virtual), "state", int.class));
            virtualTimeoutTask = r.resolve(virtual + ".timeoutTask", "Lockstep's simulator catches a timed park",
                    f -> f.field(f.type(virtual), "timeoutTask", Future.class));
            stateYielded = r.constant(virtual, "YIELDED", states);
            stateUnparked = r.constant(virtual, "UNPARKED", states);
            stateUnblocked = r.constant(virtual, "UNBLOCKED", states);
            stateTerminated = r.constant(virtual, "TERMINATED", states);
            stateNew = r.constant(virtual, "NEW", states);
            stateSuspended = r.constant(virtual, "SUSPENDED", states);
            statesProblem = r.takeProblem();

            String reuse = "Lockstep reuses a simulator carrier thread that holds no thread-local (without it, every run"
                    + " starts a new one)";
            String map = "java.lang.ThreadLocal$ThreadLocalMap";
            VarHandle locals = r.resolve("java.lang.Thread.threadLocals", reuse,
                    f -> f.field(Thread.class, "threadLocals", f.type(map)));
            VarHandle inheritable = r.resolve("java.lang.Thread.inheritableThreadLocals", reuse,
                    f -> f.field(Thread.class, "inheritableThreadLocals", f.type(map)));
            VarHandle table = r.resolve(map + ".table", reuse,
                    f -> f.field(f.type(map), "table", f.type(map + "$Entry").arrayType()));
            VarHandle value = r.resolve(map + "$Entry.value", reuse,
                    f -> f.field(f.type(map + "$Entry"), "value", Object.class));
            Problem reuseProblem = r.takeProblem();
            boolean allLocals = reuseProblem == null;
            threadLocals = allLocals ? locals : null;
            inheritableThreadLocals = allLocals ? inheritable : null;
            mapTable = allLocals ? table : null;
            entryValue = allLocals ? value : null;
            List<Problem> optional = new ArrayList<>();
            if (reuseProblem != null) {
                optional.add(reuseProblem);
            }
            optionalProblems = List.copyOf(optional);
        }

        static Members resolve(Finder finder) {
            return new Members(new Resolver(finder));
        }

        void checkFibers() {
            if (fibersProblem != null) {
                throw fibersProblem.exception();
            }
        }

        void checkFiberStates() {
            checkFibers();
            if (statesProblem != null) {
                throw statesProblem.exception();
            }
        }

        /** A line per optional member that could not be resolved, or an empty list. */
        List<String> optionalProblemMessages() {
            return optionalProblems.stream().map(problem -> problem.exception().getMessage()).toList();
        }

        private void logOptionalProblems() {
            // Without the flag the required members fail too, with the message that names it: one report is enough.
            if (fibersProblem != null && !fibersProblem.missing()) {
                return;
            }
            System.Logger logger = System.getLogger(JdkInternals.class.getName());
            for (String message : optionalProblemMessages()) {
                logger.log(System.Logger.Level.WARNING, message);
            }
        }
    }

    /** Resolves members one by one and keeps the first problem of a group. */
    private static final class Resolver {
        private final Finder finder;
        private Problem problem;

        Resolver(Finder finder) {
            this.finder = finder;
        }

        interface Lookup<T> {
            T find(Finder finder) throws ReflectiveOperationException;
        }

        <T> T resolve(String member, String purpose, Lookup<T> lookup) {
            try {
                return lookup.find(finder);
            } catch (IllegalAccessException | InaccessibleObjectException | SecurityException closed) {
                note(new Problem(member, purpose, false, closed));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError gone) {
                note(new Problem(member, purpose, true, gone));
            }
            return null;
        }

        int constant(String type, String name, String purpose) {
            Integer value = resolve(type + "." + name, purpose, f -> f.staticInt(f.type(type), name));
            return value == null ? -1 : value;
        }

        private void note(Problem found) {
            if (problem == null) {
                problem = found;
            }
        }

        Problem takeProblem() {
            Problem taken = problem;
            problem = null;
            return taken;
        }
    }
}
