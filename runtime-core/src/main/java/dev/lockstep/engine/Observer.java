package dev.lockstep.engine;

import dev.lockstep.Waker;

/**
 * Who learns of a request's completion. Mutable, owned by the slot; only the owning worker touches it.
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
    OneShot<Object> channel;

    private Observer(Kind kind, OneShot<Object> channel) {
        this.kind = kind;
        this.channel = channel;
    }

    static Observer local() {
        return new Observer(Kind.LOCAL, null);
    }

    static Observer detached(OneShot<Object> channel) {
        return new Observer(Kind.DETACHED, channel);
    }
}
