package dev.lockstep.engine.worker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One retired request that an object keeps for its next request of that kind — a stream's next receive — so a
 * steady stream of them allocates no request each. The per-object form of a worker's {@link Recycler}: a
 * stream's receives are made on whatever worker the calling fiber runs on, so the request that one worker
 * retires may be taken by a fiber of another, and the hand-over is atomic instead of confined.
 *
 * <h2>Why reuse is safe</h2>
 * The argument of {@link Recycler}: a request is given back once per admission, from its {@code release} at
 * retirement, after the driver dropped its slot, the kernel's last completion arrived and the result was handed
 * on; nothing else holds the request (an operation holds its slot's packed id, whose generation changed at the
 * retirement); a request released as abandoned is never given back.
 *
 * <h2>Threads</h2>
 * {@link #give} runs on the worker that retired the request, {@link #take} on any worker's fiber. {@code take}
 * empties the slot with one atomic exchange, so of two takers at most one gets the request, and a request is
 * never out twice: it is given back only by its own release, after its taker's use. {@code give}'s volatile
 * write publishes everything the release wrote before it to the taker, whose exchange reads it. A give that
 * finds the slot full replaces what is there; the replaced request is simply left to the collector.
 *
 * @param <R> the request kind
 */
public final class Spare<R> {
    /** The kept request, or null; exchanged through {@link #KEPT} (a field: one object less per stream). */
    private volatile Object kept;
    private static final VarHandle KEPT;

    static {
        try {
            KEPT = MethodHandles.lookup().findVarHandle(Spare.class, "kept", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The kept request, or null (the caller makes a new one).
     *
     * @return the request, the caller's alone now
     */
    @SuppressWarnings("unchecked")
    public R take() {
        // Read first: an empty slot (the common case while the request is in flight) costs no atomic write.
        return kept == null ? null : (R) KEPT.getAndSet(this, (Object) null);
    }

    /**
     * Keeps a request that has just been released and is referenced by nothing else.
     *
     * @param request the request
     */
    public void give(R request) {
        kept = request;
    }
}
