package dev.lockstep.engine;

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
        synchronized (this) {
            if (outcome != null) {
                return;
            }
            outcome = result;
        }
        waiters.wakeAll();
    }

    boolean isAborted() {
        Fiber current = fiber;
        return node.isAborted() || (current != null && current.isAborted());
    }

    synchronized Poll<T> outcome() {
        return outcome;
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
    public synchronized boolean isDone() {
        return outcome != null;
    }

    @Override
    public String toString() {
        return "Handle(" + label + ")";
    }
}
