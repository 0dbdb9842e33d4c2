package dev.lockstep.engine.task;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The names of fibers' virtual threads, {@code lockstep-WORKER-LABEL}: the last name made for each worker is kept
 * and handed out again while the label stays the same, so a server that spawns a task per connection from one
 * child label makes no new string per connection.
 *
 * <p>Thread-safe: any thread that spawns asks. Each worker's last name is one immutable pair, replaced whole; two
 * spawners that race both get a correct name and one of them is kept.
 */
final class FiberNames {
    /** A label and the name made from it on one worker. */
    private record Named(String label, String name) { }

    private final AtomicReferenceArray<Named> lastByWorker;

    /**
     * @param workers how many workers the engine has
     */
    FiberNames(int workers) {
        lastByWorker = new AtomicReferenceArray<>(workers);
    }

    /**
     * The name of a fiber with {@code label} on worker {@code worker}.
     *
     * @param worker the worker's index
     * @param label the fiber's task label
     * @return {@code "lockstep-" + worker + "-" + label}
     */
    String of(int worker, String label) {
        Named last = lastByWorker.getAcquire(worker);
        if (last != null && last.label.equals(label)) {
            return last.name;
        }
        Named made = new Named(label, "lockstep-" + worker + "-" + label);
        lastByWorker.setRelease(worker, made);
        return made.name;
    }
}
