package dev.lockstep.engine.io;

import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Worker;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The order of metadata requests on one storage partition: they run one at a time, in the order they were
 * admitted, whichever workers admitted them; requests on different partitions have different lanes and run
 * side by side. So an {@code open} that creates a blob and a {@code remove} of it admitted after the open keep
 * their order although each is submitted to its own worker's ring and runs off that worker.
 *
 * <h2>Protocol</h2>
 * A request {@link #join}s at admission, inside its worker's critical section, and may be submitted once it is
 * the {@link #isHead head}. It {@link #leave}s when its outcome is known (its completion arrived, or it failed
 * or was refused before it reached the kernel), and at the latest when it is released at retirement, so a
 * request that never runs never holds the lane. Leaving nudges the worker of the new head.
 *
 * <h2>Threads, and why no wake-up is lost</h2>
 * Any worker may join, test and leave, inside its critical section, where nothing may park: the lane is one
 * {@link ConcurrentLinkedQueue}, whose operations are lock-free CAS loops and linearizable. A waiting worker
 * first joins (an {@code offer}), then tests the head (a {@code peek}) on every service turn until it is the
 * head; a leaving worker first removes its entry, then {@code peek}s the new head and nudges that entry's
 * worker. Take a waiter W and the leaver L directly before it. If W's test is linearized after L's removal,
 * W sees itself at the head. Otherwise W's join and test came before L's removal, so L's {@code peek} after
 * the removal sees W and nudges W's worker. The nudge is a {@code Ring.wake()}, which makes that worker's
 * current or next wait return, so its next turn tests again. (A waiter behind W is reached the same way when
 * W leaves.) What a request's calls did before it left is visible to the next request: the removal and the
 * next {@code peek} are volatile accesses of the same queue nodes.
 */
public final class MetadataLane {
    /** Admitted and not yet left, in admission order; the head may run. */
    private final ConcurrentLinkedQueue<Waiting> queue = new ConcurrentLinkedQueue<>();
    private final String partition;

    /** One request in the lane and the worker to nudge when it becomes the head. */
    public record Waiting(Request request, Worker worker) {
    }

    MetadataLane(String partition) {
        this.partition = partition;
    }

    /**
     * Joins the lane at its tail.
     *
     * @param request the metadata request, once
     * @param worker its worker, nudged when it becomes the head
     * @return the entry, for {@link #isHead} and {@link #leave}
     */
    public Waiting join(Request request, Worker worker) {
        Waiting waiting = new Waiting(request, worker);
        queue.offer(waiting);
        return waiting;
    }

    /**
     * Whether {@code waiting} is at the head: every request admitted before it left.
     *
     * @param waiting an entry from {@link #join}
     * @return true if it may run
     */
    public boolean isHead(Waiting waiting) {
        return queue.peek() == waiting;
    }

    /**
     * Leaves the lane and nudges the new head's worker. Idempotent: a second call finds nothing to remove and
     * nudges nobody.
     *
     * @param waiting an entry from {@link #join}
     */
    public void leave(Waiting waiting) {
        if (!queue.remove(waiting)) {
            return;
        }
        Waiting next = queue.peek();
        if (next != null) {
            next.worker().nudge();
        }
    }

    /**
     * Requests in the lane, for tests and diagnostics.
     *
     * @return the count
     */
    int size() {
        return queue.size();
    }

    @Override
    public String toString() {
        return "MetadataLane(" + partition + ", " + queue.size() + " waiting)";
    }
}
