package dev.lockstep;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Wakers that watch how a runtime uses them (the seed's {@code Reentrant} fixture, shared by the engine's tests and
 * the conformance suite): every callback checks that it does not run inside a worker's critical section, counts
 * itself, and can be armed to throw once.
 *
 * <p>Rust's {@code RawWakerVTable} has four entries; the {@link Waker} contract has their Java forms:
 * {@code clone} is {@link Waker#retain()} (the runtime stores what it returns), {@code wake}/{@code wake_by_ref}
 * is {@link Waker#wake()}, {@code drop} of a stored copy is {@link Waker#release()}, and {@code will_wake} —
 * which in Rust compares vtable and data pointers, so every clone of one waker is equal — is
 * {@link Waker#willWake}, true between any two wakers of one fixture. {@link #waker()} hands out unretained
 * wakers; {@code retain()} returns a new stored copy, which the runtime must consume exactly once, by
 * {@code wake()} or {@code release()}. Rust's {@code Arc::strong_count(&callbacks) == 1} (every clone the runtime
 * made was dropped) is {@link #outstanding()} {@code == 0}; a second consumption of one copy is counted as a
 * double use. A test's own waker is not a stored copy; dropping it has no Java form, so the seed's drop counts
 * that include it are one higher than {@link #releases()}.
 *
 * <p>The seed's {@code check_local} panics when a callback runs under a worker's borrow; here the callback records
 * a violation ({@link #assertClean()} fails with it) so the runtime is not disturbed mid-callback. Thread-safe:
 * callbacks may run on any thread.
 */
public final class Reentrant {
    /** The callbacks that can be armed; {@link #number} is the seed's constant, named by the failure's message. */
    public enum Callback {
        /** {@code retain}: the seed's {@code Reentrant::CLONE}. */
        RETAIN(1),
        /** {@code wake}: the seed's {@code Reentrant::WAKE}. */
        WAKE(2),
        /** {@code release}: the seed's {@code Reentrant::DROP}. */
        RELEASE(3);

        private final int number;

        Callback(int number) {
            this.number = number;
        }

        /**
         * The seed's constant for this callback.
         *
         * @return 1, 2 or 3
         */
        public int number() {
            return number;
        }
    }

    private final Supplier<String> criticalSection;
    private final AtomicInteger retainCalls = new AtomicInteger();
    private final AtomicInteger retained = new AtomicInteger();
    private final AtomicInteger wakes = new AtomicInteger();
    private final AtomicInteger releases = new AtomicInteger();
    private final AtomicInteger equalityChecks = new AtomicInteger();
    private final AtomicInteger doubleUses = new AtomicInteger();
    private final AtomicInteger unretainedUses = new AtomicInteger();
    private final List<String> violations = new ArrayList<>();
    private final AtomicReference<Callback> armed = new AtomicReference<>();
    private final AtomicReference<RuntimeException> thrown = new AtomicReference<>();
    /** Run by every {@code retain} after counting it (the seed's {@code on_clone}); may register, poll and close. */
    public volatile Runnable onRetain;
    /** Run by every {@code release} of a stored copy. */
    public volatile Runnable onRelease;
    /** Run by every {@code wake} of a stored copy. */
    public volatile Runnable onWake;

    /**
     * A fixture whose callbacks ask {@code criticalSection} where they run.
     *
     * @param criticalSection describes the worker critical section the calling thread is inside, or returns null
     *     when it is inside none
     */
    public Reentrant(Supplier<String> criticalSection) {
        this.criticalSection = criticalSection;
    }

    /**
     * A new waker of this fixture, not stored by anyone (the seed's {@code callbacks.waker()}), equivalent to every
     * other waker of the fixture.
     *
     * @return the waker
     */
    public Waker waker() {
        return new Copy(false);
    }

    /**
     * Makes the next call of {@code callback} throw an {@link IllegalStateException} whose message is
     * {@code "waker callback panic N"} (the seed's {@code panic_callback.store}); the failure is then
     * {@link #thrown()}.
     *
     * @param callback the callback
     */
    public void arm(Callback callback) {
        armed.set(callback);
    }

    /**
     * The exception the armed callback threw, or null.
     *
     * @return the exception
     */
    public RuntimeException thrown() {
        return thrown.get();
    }

    /**
     * Calls of {@code retain} (Rust clones), including one that threw.
     *
     * @return the count
     */
    public int retainCalls() {
        return retainCalls.get();
    }

    /**
     * Stored copies handed to the runtime (retains that returned).
     *
     * @return the count
     */
    public int retained() {
        return retained.get();
    }

    /**
     * Wakes, including one that threw.
     *
     * @return the count
     */
    public int wakes() {
        return wakes.get();
    }

    /**
     * Releases of stored copies (Rust drops of runtime-held clones), including one that threw.
     *
     * @return the count
     */
    public int releases() {
        return releases.get();
    }

    /**
     * Calls of {@code willWake}.
     *
     * @return the count
     */
    public int equalityChecks() {
        return equalityChecks.get();
    }

    /**
     * Stored copies consumed twice.
     *
     * @return the count
     */
    public int doubleUses() {
        return doubleUses.get();
    }

    /**
     * Stored copies neither woken nor released: the seed's {@code Arc::strong_count(&callbacks) - 1}.
     *
     * @return the count
     */
    public int outstanding() {
        return retained.get() - wakes.get() - releases.get();
    }

    /**
     * Callbacks that ran inside a worker's critical section, each described.
     *
     * @return a copy of the list
     */
    public List<String> violations() {
        synchronized (violations) {
            return new ArrayList<>(violations);
        }
    }

    /** Fails if a callback ran inside a critical section, a copy was consumed twice, or one was never stored. */
    public void assertClean() {
        List<String> seen = violations();
        if (!seen.isEmpty()) {
            throw new AssertionError("waker callbacks ran inside a worker's critical section: " + seen);
        }
        if (doubleUses.get() != 0) {
            throw new AssertionError(doubleUses.get() + " stored waker copies were consumed twice");
        }
        if (unretainedUses.get() != 0) {
            throw new AssertionError(unretainedUses.get() + " wakes or releases of copies the runtime never stored");
        }
    }

    /** {@link #assertClean()}, and every stored copy consumed exactly once: the seed's {@code strong_count == 1}. */
    public void assertBalanced() {
        assertClean();
        if (outstanding() != 0) {
            throw new AssertionError("stored waker copies not consumed: retained " + retained + ", woken " + wakes
                    + ", released " + releases);
        }
    }

    private void checkOutsideCriticalSection(String callback) {
        String inside = criticalSection.get();
        if (inside != null) {
            synchronized (violations) {
                violations.add(callback + " in " + inside + " (thread " + Thread.currentThread().getName() + ")");
            }
        }
    }

    /** The seed's {@code panic_once}: disarmed first, so cleanup can use the remaining wakers. */
    private void throwIfArmed(Callback callback) {
        if (armed.compareAndSet(callback, null)) {
            RuntimeException failure = new IllegalStateException("waker callback panic " + callback.number);
            thrown.set(failure);
            throw failure;
        }
    }

    private static void run(Runnable action) {
        if (action != null) {
            action.run();
        }
    }

    /** One waker of the fixture; {@code stored} copies are the ones the runtime owns. */
    private final class Copy implements Waker {
        private final boolean stored;
        private final AtomicBoolean consumed = new AtomicBoolean();

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
        public Waker retain() {
            checkOutsideCriticalSection("retain");
            retainCalls.incrementAndGet();
            throwIfArmed(Callback.RETAIN);
            run(onRetain);
            retained.incrementAndGet();
            return new Copy(true);
        }

        @Override
        public void wake() {
            checkOutsideCriticalSection("wake");
            consume();
            wakes.incrementAndGet();
            throwIfArmed(Callback.WAKE);
            run(onWake);
        }

        @Override
        public void release() {
            checkOutsideCriticalSection("release");
            consume();
            releases.incrementAndGet();
            throwIfArmed(Callback.RELEASE);
            run(onRelease);
        }

        @Override
        public boolean willWake(Waker other) {
            checkOutsideCriticalSection("willWake");
            equalityChecks.incrementAndGet();
            return other instanceof Copy copy && copy.fixture() == Reentrant.this;
        }

        private Reentrant fixture() {
            return Reentrant.this;
        }
    }
}
