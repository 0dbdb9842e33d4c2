package dev.lockstep.sync;

import dev.lockstep.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A value set once and awaited by any number of tasks: the first {@link #complete} or {@link #fail} wins, every
 * {@link #get()} operation (before or after) then completes with it. Waiting goes through Lockstep, so it is
 * deterministic in the simulator and abortable everywhere.
 *
 * <p><b>Threads.</b> Complete and get from any fiber of any worker or a plain thread; one lock guards the
 * state, held only for list updates (see {@link Waiting}).
 *
 * @param <T> the value; null is a value like any other
 */
public final class OneShot<T> {
    private final FiberSafeLock lock = new FiberSafeLock();
    private boolean done;
    private T value;
    private RuntimeException failure;
    private final List<Get> waiting = new ArrayList<>();

    /** An unset one-shot. */
    public OneShot() {
    }

    /**
     * Sets the value if nothing was set yet.
     *
     * @param result the value
     * @return true if this call set it
     */
    public boolean complete(T result) {
        return settle(result, null);
    }

    /**
     * Sets a failure if nothing was set yet: every get fails with it.
     *
     * @param error the failure, not null
     * @return true if this call set it
     */
    public boolean fail(RuntimeException error) {
        return settle(null, Objects.requireNonNull(error, "error"));
    }

    private boolean settle(T result, RuntimeException error) {
        Wakes wakes = new Wakes();
        lock.lock();
        try {
            if (done) {
                return false;
            }
            done = true;
            value = result;
            failure = error;
            for (Get get : waiting) {
                wakes.wake(get.completeLocked(result, error));
            }
            waiting.clear();
        } finally {
            lock.unlock();
        }
        wakes.run();
        return true;
    }

    /**
     * Whether a value or failure was set.
     *
     * @return true once set
     */
    public boolean isDone() {
        lock.lock();
        try {
            return done;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for the value.
     *
     * @return an operation that completes with the value, or fails with the failure; closing it stops only this
     *     wait
     */
    public Operation<T> get() {
        Get get = new Get();
        Wakes wakes = new Wakes();
        lock.lock();
        try {
            if (done) {
                wakes.wake(get.completeLocked(value, failure));
            } else {
                waiting.add(get);
            }
        } finally {
            lock.unlock();
        }
        wakes.run();
        return get;
    }

    private final class Get extends Waiting<T> {
        Get() {
            super(OneShot.this.lock);
        }

        @Override
        void cancelLocked(Wakes wakes) {
            waiting.remove(this);
        }

        @Override
        String describe() {
            return "a wait for a one-shot value";
        }
    }
}
