package dev.lockstep.engine.request;

import dev.lockstep.Waker;

/**
 * Who learns of a request's completion. Mutable, owned by the slot; only the owning worker touches it.
 *
 * <p>One per {@link Slot}, for the slot's whole life: {@link #observe} resets it when the slot admits its
 * next request and {@link #clear} empties it when the request retires, so an operation costs no observer of
 * its own. Reuse is safe because nothing outside the driver ever holds an observer: the driver reads its
 * fields and hands on only what they point to (a waker, a channel), all on the worker's own thread.
 */
final class Observer {
    /** The kind of observer. */
    enum Kind {
        /** A registration on the owning worker; {@link #waker} is installed by the first pending poll. */
        LOCAL,
        /** Observation moved to a channel by a poll on another thread or worker. */
        FORWARDED,
        /** A sync started by {@code startSync}: the result goes to a channel nobody has to poll. */
        DETACHED,
        /** Nobody: the operation was closed; retained work finishes and its result is dropped. */
        NONE
    }

    Kind kind;
    /** The retained waker of a {@link Kind#LOCAL} observer, or null. */
    Waker waker;
    /** The thread whose poll installed {@link #waker}: its own close releases the waker, others wake it. */
    Thread wakerThread;
    /** The channel of a {@link Kind#FORWARDED} or {@link Kind#DETACHED} observer. */
    ResultChannel<Object> channel;

    Observer() {
        this.kind = Kind.NONE;
    }

    /**
     * Starts observing a newly admitted request.
     *
     * @param detachedChannel the channel of a detached sync, or null for a local registration
     */
    void observe(ResultChannel<Object> detachedChannel) {
        kind = detachedChannel == null ? Kind.LOCAL : Kind.DETACHED;
        channel = detachedChannel;
        waker = null;
        wakerThread = null;
    }

    /** The request retired: nobody observes the slot, and it keeps no reference to a waker or channel. */
    void clear() {
        kind = Kind.NONE;
        channel = null;
        waker = null;
        wakerThread = null;
    }
}
