package dev.lockstep.engine;

import dev.lockstep.sync.FiberSafeLock;
import dev.lockstep.ClosedException;
import dev.lockstep.ExitedException;
import dev.lockstep.Handle;
import dev.lockstep.Poll;
import dev.lockstep.Waker;

/**
 * The handle of a spawned task. Thread-safe: the outcome is set once under the monitor, and waiters are woken
 * outside it.
 *
 * @param <T> the task's value
 */
final class TaskHandle<T> implements Handle<T> {
    private final Engine engine;
    final Supervision.Node node;
    final String label;
    private final WaitList waiters = new WaitList();
    /**
     * Guards {@link #outcome}: the fiber finishing the task sets it, worker threads do when they abort a task
     * that never ran, any thread polls it (a {@link FiberSafeLock}: a fiber must never queue on a lock its
     * carrier may take).
     */
    private final FiberSafeLock lock = new FiberSafeLock();
    private Poll<T> outcome;
    volatile Fiber fiber;

    TaskHandle(Engine engine, Supervision.Node node, String label) {
        this.engine = engine;
        this.node = node;
        this.label = label;
    }

    void succeed(T value) {
        finish(Poll.ready(value));
    }

    void failWith(Throwable failure) {
        RuntimeException reported = failure instanceof ClosedException closed && isAborted() ? closed
                : new ExitedException("task '" + label + "' failed: " + failure, failure);
        finish(Poll.failed(reported));
    }

    void closed(String why) {
        finish(Poll.failed(new ClosedException("task '" + label + "' " + why)));
    }

    private void finish(Poll<T> result) {
        lock.lock();
        try {
            if (outcome != null) {
                return;
            }
            outcome = result;
        } finally {
            lock.unlock();
        }
        waiters.wakeAll();
    }

    boolean isAborted() {
        Fiber current = fiber;
        return node.isAborted() || (current != null && current.isAborted());
    }

    Poll<T> outcome() {
        lock.lock();
        try {
            return outcome;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public T await() {
        engine.checkForeignCaller("Handle.await");
        Fibers.awaitUntil(this::isDone, waiters);
        return outcome().get();
    }

    @Override
    public Poll<T> poll(Waker waker) {
        engine.checkForeignCaller("Handle.poll");
        Poll<T> result = outcome();
        if (result != null) {
            return result;
        }
        if (waker != null) {
            waiters.add(waker);
        }
        result = outcome();
        return result != null ? result : Poll.pending();
    }

    @Override
    public void abort() {
        engine.supervision().abort(node);
    }

    @Override
    public boolean isDone() {
        lock.lock();
        try {
            return outcome != null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "Handle(" + label + ")";
    }
}
