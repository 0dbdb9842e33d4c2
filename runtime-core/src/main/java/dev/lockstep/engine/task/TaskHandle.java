package dev.lockstep.engine.task;

import dev.lockstep.ClosedException;
import dev.lockstep.ExitedException;
import dev.lockstep.Handle;
import dev.lockstep.Poll;
import dev.lockstep.Waker;
import dev.lockstep.engine.Engine;

/**
 * The handle of a spawned task. Thread-safe without a lock: the outcome is set once, by a compare-and-set, and
 * waiters are woken after it.
 *
 * <h2>Publication and wake-ups</h2>
 * {@link #outcome} is volatile and goes from null to its value once ({@link #finish}: the first of the finishing
 * fiber, an abort of a task that never ran, wins). A reader ({@link #isDone}, {@link #outcome()}, any thread) sees
 * null or the outcome with everything the finishing thread wrote before it. {@link #poll} cannot lose a wake-up:
 * it reads the outcome, makes or finds the handle's {@link #waiters} (volatile, set once by a compare-and-exchange),
 * lists a retained copy of its waker there (under the lists' lock), then reads the outcome again; {@code finish} sets
 * the outcome, then reads {@link #waiters} and, if set, wakes every listed copy (taking them under the same lock). If
 * the second read sees null, the set comes after it in the order of the volatile accesses, and so does
 * {@code finish}'s read of {@link #waiters}, which then sees the lists: the copy was listed before {@code finish}
 * takes the list and is woken. If {@code finish} read no lists, they were made after that read, and the waiter's
 * second read sees the outcome. If it sees the outcome, the poll takes its copy off
 * the list and releases it, unless {@code finish} took it first and wakes it: either way the copy is consumed once,
 * as {@link Waker} promises. The simulator's loop asks the root's {@link #isDone} every step: a lock there was
 * about 2 % of a demo seed's CPU. {@code ModelCheckingTest#aTaskFinishedTwiceHasOneOutcomeAndWakesItsPoller}
 * checks this.
 *
 * @param <T> the task's value
 */
public final class TaskHandle<T> implements Handle<T> {
    private final Engine engine;
    final Supervision.Node node;
    final String label;
    /**
     * Who waits for the outcome: null until the first {@link #poll} with a waker or {@link #await} makes it, as most
     * handles (a task per connection whose handle is dropped) are never waited on and would otherwise hold a lock
     * and two lists each for their whole life.
     */
    private volatile Waiters waiters;
    /**
     * Null until the task ends, then its outcome for good (see the class doc): set by the fiber finishing the task,
     * or by a worker thread aborting a task that never ran; read by any thread.
     */
    private volatile Poll<T> outcome;
    private static final java.lang.invoke.VarHandle OUTCOME;
    private static final java.lang.invoke.VarHandle WAITERS;

    static {
        try {
            java.lang.invoke.MethodHandles.Lookup lookup = java.lang.invoke.MethodHandles.lookup();
            OUTCOME = lookup.findVarHandle(TaskHandle.class, "outcome", Poll.class);
            WAITERS = lookup.findVarHandle(TaskHandle.class, "waiters", Waiters.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    volatile Fiber fiber;

    public TaskHandle(Engine engine, Supervision.Node node, String label) {
        this.engine = engine;
        this.node = node;
        this.label = label;
    }

    public void succeed(T value) {
        finish(Poll.ready(value));
    }

    /**
     * What awaiting this handle throws for a body that threw {@code failure}: its own ClosedException passes
     * through when the task was aborted (the abort's), anything else is wrapped in ExitedException. Decided when
     * the body ends, before the end of the task aborts the nodes below it.
     */
    RuntimeException reported(Throwable failure) {
        return failure instanceof ClosedException closed && isAborted() ? closed
                : new ExitedException("task '" + label + "' failed: " + describe(failure), failure);
    }

    /** The failure's {@code toString}, or its class name when the user's {@code toString} itself throws. */
    private static String describe(Throwable failure) {
        try {
            return String.valueOf(failure);
        } catch (RuntimeException | StackOverflowError unprintable) {
            return failure.getClass().getName() + " (its toString threw " + unprintable.getClass().getName() + ")";
        }
    }

    void fail(RuntimeException reported) {
        finish(Poll.failed(reported));
    }

    public void closed(String why) {
        closed(why, null);
    }

    /** As {@link #closed(String)}, with {@code suppressed} (or null) attached: a failed close of what it owned. */
    void closed(String why, Throwable suppressed) {
        ClosedException closed = new ClosedException("task '" + label + "' " + why);
        if (suppressed != null) {
            closed.addSuppressed(suppressed);
        }
        finish(Poll.failed(closed));
    }

    private void finish(Poll<T> result) {
        if (OUTCOME.compareAndSet(this, null, result)) {
            // Read after the outcome is set: null means every later waiter makes the lists after this read, and
            // so reads the outcome in its re-check (class doc).
            Waiters listed = waiters;
            if (listed != null) {
                listed.pollers.wakeAll();
                listed.awaiters.wakeAll();
            }
        }
    }

    /** {@link #waiters}, made by the first caller: racing callers agree on one by a compare-and-exchange. */
    private Waiters waiters() {
        Waiters existing = waiters;
        if (existing != null) {
            return existing;
        }
        Waiters made = new Waiters();
        Waiters raced = (Waiters) WAITERS.compareAndExchange(this, (Waiters) null, made);
        return raced != null ? raced : made;
    }

    /** The lists of a handle that is waited on. */
    private static final class Waiters {
        /** Guards both lists: each of their sections touches one list only, so one lock serves both. */
        private final dev.lockstep.sync.FiberSafeLock lock = new dev.lockstep.sync.FiberSafeLock();
        /** The copies listed by direct {@link #poll}s, one per polling party. */
        private final WaitList pollers = new WaitList(lock);
        /** The copies listed by {@link #await}s' conditions, one per await. */
        private final WaitList awaiters = new WaitList(lock);
    }

    boolean isAborted() {
        Fiber current = fiber;
        return node.isAborted() || (current != null && current.isAborted());
    }

    public Poll<T> outcome() {
        return outcome;
    }

    @Override
    public T await() {
        Engine.checkForeignCaller(engine, "Handle.await");
        Fibers.awaitUntil(this::isDone, waiters().awaiters);
        return outcome().get();
    }

    @Override
    public Poll<T> poll(Waker waker) {
        Engine.checkForeignCaller(engine, "Handle.poll");
        Poll<T> result = outcome;
        if (result != null || waker == null) {
            return result != null ? result : Poll.pending();
        }
        WaitList pollers = waiters().pollers;
        Waker listed = pollers.addUnlessEquivalent(waker);
        result = outcome;
        if (result != null) {
            pollers.remove(listed); // ready after all: the copy is released here, or woken by finish if it took it
            return result;
        }
        return Poll.pending();
    }

    /**
     * Nothing to release: the handle is every holder's view of the task, not one request (Handle's class doc), so
     * closing it stops no task and hides the outcome from nobody. Wakers listed by polls stay until {@link #finish}
     * wakes them, each once, as it would have.
     */
    @Override
    public void close() {
    }

    @Override
    public void abort() {
        engine.supervision().abort(node);
    }

    @Override
    public boolean isDone() {
        return outcome != null;
    }

    @Override
    public String toString() {
        return "Handle(" + label + ")";
    }
}
