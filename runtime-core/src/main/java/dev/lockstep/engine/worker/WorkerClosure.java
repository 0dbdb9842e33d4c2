package dev.lockstep.engine.worker;

import dev.lockstep.ClosedException;
import dev.lockstep.engine.Engine;
import dev.lockstep.engine.request.Driver;

/**
 * How a worker retires, on its own thread, once its runtime shuts down: {@link #close} drains it in order (refuse
 * new work, resolve observers, cancel, wait for every completion, retire the driver, close the mailbox and the
 * ring); {@link #abandon} is what is left when that failed because the ring cannot be drained.
 */
final class WorkerClosure {
    private WorkerClosure() {
    }

    /**
     * Retires {@code worker} ({@link Worker#close()}); for a runtime whose ring never blocks (the simulator), while
     * in-flight work remains and a turn reaped nothing, {@code onIdle} moves time forward.
     *
     * @param worker the worker, on its own thread
     * @param onIdle advances the runtime's clock to its next event, or null to let the ring wait
     */
    static void close(Worker worker, Runnable onIdle) {
        if (worker.isStranded()) {
            // A fiber parked for good inside the critical section (reported when it unmounted): retiring would
            // take the state from under it. The runtime has failed already; refuse new work and leave the rest.
            worker.markClosing();
            return;
        }
        Worker previous = Worker.enter(worker);
        try {
            worker.markClosing();
            worker.drainMailbox();
            Driver slab = worker.borrow();
            try {
                if (slab == null) {
                    return;
                }
                slab.closeAll();
                slab.stage();
            } finally {
                worker.unborrow();
            }
            worker.runDeferred();
            while (worker.hasRingWork()) {
                int reaped = worker.service(onIdle == null, 10_000_000L);
                if (reaped == 0 && onIdle != null) {
                    onIdle.run();
                }
            }
            worker.drainMailbox();
            worker.mailbox().close();
            worker.drainMailbox();
            Driver retiring = worker.borrow();
            try {
                retiring.retireAll();
                worker.dropDriver();
            } finally {
                worker.unborrow();
            }
            worker.runDeferred();
            worker.buffers().close();
            worker.ring().close();
        } finally {
            Worker.enter(previous);
        }
    }

    /**
     * Retires {@code worker} without its ring: what is left when {@link Worker#close()} itself failed, because the ring
     * cannot be drained. New work is refused and the mailbox closed; every pending observer learns
     * {@link ClosedException} (local wakers woken, forwarded and detached channels closed); the ring is torn
     * down; then every request is released — fds and buffers — except the buffers of requests the kernel held
     * when its ring failed: it may still write them while its own teardown runs, so those are left allocated.
     * Runs on the worker's own thread; a failure while closing the ring goes to {@link Engine#fail}.
     *
     * @param worker the worker
     */
    static void abandon(Worker worker) {
        Worker previous = Worker.enter(worker);
        try {
            worker.markClosing();
            worker.mailbox().close();
            worker.drainMailbox();
            Driver slab = worker.borrow();
            try {
                if (slab == null) {
                    return;
                }
                slab.abandonAll();
                worker.dropDriver();
            } finally {
                worker.unborrow();
            }
            try {
                worker.ring().closeAbandoned();
            } catch (RuntimeException | Error failure) {
                worker.engine().fail(failure);
            }
            worker.runDeferred();
            worker.buffers().close();
        } finally {
            Worker.enter(previous);
        }
    }
}
