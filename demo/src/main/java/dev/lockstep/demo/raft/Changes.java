package dev.lockstep.demo.raft;

import dev.lockstep.Context;
import dev.lockstep.Operation;
import dev.lockstep.TimeoutException;
import dev.lockstep.sync.OneShot;
import java.time.Duration;

/**
 * How a node's tasks wait for its state to change without holding its lock: a task takes {@link #next()} while it
 * holds the lock and waits on it ({@link #await}) after letting go; every change calls {@link #signal()} under the
 * lock, which completes that one-shot and puts a new one in its place. A change made between the task letting go and
 * its wait completes the operation it already holds, so no wake-up is lost.
 *
 * <p>{@link #next()} and {@link #signal()} must be called with the node's lock held.
 */
final class Changes {
    private OneShot<Void> current = new OneShot<>();

    /** Lock held: the operation the next change completes. */
    Operation<Void> next() {
        return current.get();
    }

    /** Lock held: wakes every task waiting for a change. */
    void signal() {
        OneShot<Void> waking = current;
        current = new OneShot<>();
        waking.complete(null);
    }

    /** Waits, without the lock, until {@code change} completes or {@code most} passes. */
    static void await(Context ctx, Operation<Void> change, Duration most) {
        try {
            ctx.timeout(most, change::await);
        } catch (TimeoutException quiet) {
            // Nothing changed: the caller looks again.
        }
    }
}
