package dev.lockstep;

/**
 * Tells a waiting party that an operation it polled may now be ready: the Java form of a Rust waker.
 *
 * <p>The runtime stores a waker only when a poll returns pending and the stored one is not equivalent; it
 * stores what {@link #retain()} returns, and later either {@link #wake()}s that copy once or
 * {@link #release()}s it. Every callback runs outside the worker's critical section, so it may register, poll
 * and close other operations on the same worker. A {@code retain} that throws propagates to the poller; a
 * {@code wake} or {@code release} that throws while the worker services its ring fails the runner, after the
 * worker has retired.
 *
 * <p>Ordinary wakers are one-method lambdas: {@code retain} returns the same object and {@code release} does
 * nothing.
 */
@FunctionalInterface
public interface Waker {

    /** Wakes the party; consumes a retained copy. May be called from any thread. */
    void wake();

    /**
     * Whether waking {@code other} would wake the same party as this. The runtime does not re-retain an
     * equivalent waker.
     *
     * @param other another waker
     * @return true if equivalent; by default, identity
     */
    default boolean willWake(Waker other) {
        return this == other;
    }

    /**
     * Called when the runtime stores this waker; returns the copy it stores.
     *
     * @return the copy to store, by default this
     */
    default Waker retain() {
        return this;
    }

    /** Called when the runtime discards a stored copy without waking it. */
    default void release() {
    }

    /**
     * A waker that does nothing.
     *
     * @return the shared no-op waker
     */
    static Waker noop() {
        return Wakers.NOOP;
    }
}

/** Holder of the shared no-op waker. */
final class Wakers {
    static final Waker NOOP = () -> { };

    private Wakers() {
    }
}
