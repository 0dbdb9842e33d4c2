package dev.lockstep.engine;

import dev.lockstep.Waker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Java form of the seed's {@code Reentrant} waker fixture: wakers whose every callback checks that it does
 * not run inside a worker's critical section, counts itself, and can be armed to throw once.
 *
 * <p>{@link #waker()} hands out unretained wakers, all equivalent to each other ({@code willWake}), as every
 * clone of one Rust waker is. {@code retain()} returns a new stored copy; the runtime must consume each stored
 * copy exactly once, by {@code wake()} or {@code release()}. So once the runtime let go of everything,
 * {@code retained() == wakes() + releases()}, and a second consumption of one copy is counted in
 * {@link #doubleUses()}.
 */
final class Reentrant {
    /** A callback that can be armed to throw. */
    enum Callback { RETAIN, WAKE, RELEASE }

    /** Calls of {@code retain}, including one that threw. */
    final AtomicInteger retainCalls = new AtomicInteger();
    /** Stored copies handed to the runtime (retains that returned). */
    final AtomicInteger retained = new AtomicInteger();
    /** Wakes of stored copies, including one that threw. */
    final AtomicInteger wakes = new AtomicInteger();
    /** Releases of stored copies, including one that threw. */
    final AtomicInteger releases = new AtomicInteger();
    /** Calls of {@code willWake}. */
    final AtomicInteger equalityChecks = new AtomicInteger();
    private final AtomicInteger doubleUses = new AtomicInteger();
    private final AtomicInteger unretainedUses = new AtomicInteger();
    private final List<String> violations = new ArrayList<>();
    private final AtomicReference<Callback> armed = new AtomicReference<>();
    private final AtomicReference<RuntimeException> thrown = new AtomicReference<>();
    /** Run by every {@code retain}, after counting it, outside any borrow (it may register, poll and close). */
    volatile Runnable onRetain;
    /** Run by every {@code release} of a stored copy. */
    volatile Runnable onRelease;
    /** Run by every {@code wake} of a stored copy. */
    volatile Runnable onWake;

    /**
     * A new unretained waker, equivalent to every other waker of this fixture.
     *
     * @return the waker
     */
    Waker waker() {
        return new Copy(false);
    }

    /** Makes the next call of {@code callback} throw; the failure is then {@link #thrown()}. */
    void arm(Callback callback) {
        armed.set(callback);
    }

    /**
     * The exception the armed callback threw, or null.
     *
     * @return the exception
     */
    RuntimeException thrown() {
        return thrown.get();
    }

    int retained() {
        return retained.get();
    }

    int wakes() {
        return wakes.get();
    }

    int releases() {
        return releases.get();
    }

    int doubleUses() {
        return doubleUses.get();
    }

    /** Stored copies not yet woken or released. */
    int outstanding() {
        return retained.get() - wakes.get() - releases.get();
    }

    synchronized List<String> violations() {
        return new ArrayList<>(violations);
    }

    /** Asserts that no callback ran inside a borrow, no copy was used twice and none was used unretained. */
    void assertClean() {
        List<String> seen = violations();
        if (!seen.isEmpty()) {
            throw new AssertionError("waker callbacks ran inside a worker's critical section: " + seen);
        }
        if (doubleUses.get() != 0) {
            throw new AssertionError(doubleUses.get() + " stored waker copies were woken or released twice");
        }
        if (unretainedUses.get() != 0) {
            throw new AssertionError(unretainedUses.get() + " wakes or releases of wakers that were never retained");
        }
    }

    /** Asserts {@link #assertClean()} and that every stored copy was consumed exactly once. */
    void assertBalanced() {
        assertClean();
        if (outstanding() != 0) {
            throw new AssertionError("stored waker copies not consumed: retained " + retained + ", woken " + wakes
                    + ", released " + releases);
        }
    }

    private void checkOutsideBorrow(String callback) {
        Worker worker = Worker.current();
        if (worker != null && worker.isBorrowed()) {
            synchronized (this) {
                violations.add(callback + " on " + worker + " (thread " + Thread.currentThread().getName() + ")");
            }
        }
    }

    private void throwIfArmed(Callback callback) {
        if (armed.compareAndSet(callback, null)) {
            RuntimeException failure = new IllegalStateException("waker callback failure: " + callback);
            thrown.set(failure);
            throw failure;
        }
    }

    /** One waker of this fixture; {@code stored} copies are the ones the runtime owns. */
    private final class Copy implements Waker {
        private final boolean stored;
        private final java.util.concurrent.atomic.AtomicBoolean consumed = new java.util.concurrent.atomic.AtomicBoolean();

        Copy(boolean stored) {
            this.stored = stored;
        }

        private void consume() {
            if (!stored) {
                unretainedUses.incrementAndGet();
            } else if (!consumed.compareAndSet(false, true)) {
                doubleUses.incrementAndGet();
            }
        }

        @Override
        public void wake() {
            checkOutsideBorrow("wake");
            consume();
            wakes.incrementAndGet();
            throwIfArmed(Callback.WAKE);
            Runnable action = onWake;
            if (action != null) {
                action.run();
            }
        }

        @Override
        public boolean willWake(Waker other) {
            checkOutsideBorrow("willWake");
            equalityChecks.incrementAndGet();
            return other instanceof Copy copy && copy.owner() == Reentrant.this;
        }

        @Override
        public Waker retain() {
            checkOutsideBorrow("retain");
            retainCalls.incrementAndGet();
            throwIfArmed(Callback.RETAIN);
            Runnable action = onRetain;
            if (action != null) {
                action.run();
            }
            retained.incrementAndGet();
            return new Copy(true);
        }

        @Override
        public void release() {
            checkOutsideBorrow("release");
            consume();
            releases.incrementAndGet();
            throwIfArmed(Callback.RELEASE);
            Runnable action = onRelease;
            if (action != null) {
                action.run();
            }
        }

        private Reentrant owner() {
            return Reentrant.this;
        }
    }
}
