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
 * it reads the outcome, lists a retained copy of its waker in {@link #pollers} (under that list's lock), then
 * reads the outcome again; {@code finish} sets the outcome, then wakes every listed copy (taking them under the same
 * lock). If the second read sees null, the set comes after it in the order of the volatile accesses, so the copy
 * was listed before {@code finish} takes the list and is woken. If it sees the outcome, the poll takes its copy off
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
    /** Guards both lists below: each of their sections touches one list only, so one lock serves both. */
    private final dev.lockstep.sync.FiberSafeLock waitersLock = new dev.lockstep.sync.FiberSafeLock();
    /** The copies listed by direct {@link #poll}s, one per polling party. */
    private final WaitList pollers = new WaitList(waitersLock);
    /** The copies listed by {@link #await}s' conditions, one per await. */
    private final WaitList awaiters = new WaitList(waitersLock);
    /**
     * Null until the task ends, then its outcome for good (see the class doc): set by the fiber finishing the task,
     * or by a worker thread aborting a task that never ran; read by any thread.
     */
    private volatile Poll<T> outcome;
    private static final java.lang.invoke.VarHandle OUTCOME;

    static {
        try {
            OUTCOME = java.lang.invoke.MethodHandles.lookup().findVarHandle(TaskHandle.class, "outcome", Poll.class);
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
            pollers.wakeAll();
            awaiters.wakeAll();
        }
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
        Fibers.awaitUntil(this::isDone, awaiters);
        return outcome().get();
    }

    @Override
    public Poll<T> poll(Waker waker) {
        Engine.checkForeignCaller(engine, "Handle.poll");
        Poll<T> result = outcome;
        if (result != null || waker == null) {
            return result != null ? result : Poll.pending();
        }
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
