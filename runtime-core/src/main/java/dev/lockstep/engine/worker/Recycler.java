package dev.lockstep.engine.worker;

import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.request.WaiterId;

/**
 * Retired requests of one kind that one worker keeps for its next operations of that kind, so a steady stream of
 * reads or writes allocates no request object each.
 *
 * <h2>Threads, and why there is no lock</h2>
 * A recycler belongs to one worker and is touched only on that worker's thread: {@link #take} by the worker's
 * fiber making an I/O call (the call has found its worker with {@link Worker#current()} and registers there), and
 * {@link #give} by the request's {@code release}, which the worker's driver defers to the worker's own
 * {@link Worker#runDeferred()} when the request retires (or which the registering fiber calls itself when a
 * closing worker refuses the request). On runtime-uring the fibers of a worker and its service turns run on its
 * one carrier thread; in the simulator every worker runs on the simulator's thread. Either way both ends run in
 * program order on one thread.
 *
 * <h2>Why reuse is safe</h2>
 * A request is given back exactly once, from {@code release}, which runs once per admission and only at
 * retirement: the driver has already dropped its slot's reference, the kernel's last completion for the request
 * has arrived (its buffers are released in the same call), and the request's result was handed on before it
 * retired. Nothing else ever holds a request — an {@link dev.lockstep.Operation} holds the slot's packed
 * {@link WaiterId}, whose generation changes at retirement, never the request — so the object can serve the next
 * admission with all its fields set afresh. A request the kernel may still hold after its ring failed
 * ({@link Request#releaseAbandoned}) is never given back.
 *
 * @param <R> the request kind
 */
public final class Recycler<R extends Request> {
    /** How many retired requests of one kind a worker keeps: as many as can usefully be in flight at once. */
    static final int KEPT = 64;

    private final Object[] kept = new Object[KEPT];
    private int count;

    /**
     * A retired request to reuse, or null if none is kept (the caller makes a new one).
     *
     * @return the request, whose fields the caller sets before admitting it
     */
    @SuppressWarnings("unchecked")
    public R take() {
        if (count == 0) {
            return null;
        }
        R request = (R) kept[--count];
        kept[count] = null;
        return request;
    }

    /**
     * Keeps a request that has just been released, unless enough are kept already.
     *
     * @param request the released request, referenced by nothing else
     */
    public void give(R request) {
        if (count < KEPT) {
            kept[count++] = request;
        }
    }

    /**
     * Requests kept now.
     *
     * @return the count
     */
    int kept() {
        return count;
    }
}
