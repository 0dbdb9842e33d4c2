package dev.lockstep.conformance;

import dev.lockstep.Waker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The seed's {@code Reentrant} fixture: wakers whose every callback checks that the current worker's state is
 * not borrowed, counts itself, and can be armed to throw once.
 *
 * <p>Rust's {@code RawWakerVTable} has four entries; the {@link Waker} contract has their Java forms:
 * {@code clone} is {@link Waker#retain()} (the runtime stores what it returns), {@code wake}/{@code wake_by_ref}
 * is {@link Waker#wake()}, {@code drop} of a stored copy is {@link Waker#release()}, and {@code will_wake} —
 * which in Rust compares vtable and data pointers, so every clone of one waker is equal — is
 * {@link Waker#willWake}, true between any two wakers of one fixture. Rust's {@code Arc::strong_count(&callbacks)
 * == 1} (every clone the runtime made was dropped) is {@link #outstanding()} {@code == 0}: every stored copy
 * was consumed exactly once, by a wake or a release. A test's own waker is not a stored copy; dropping it has
 * no Java form, so the seed's drop counts that include it are one higher than {@link #drops}.
 *
 * <p>The seed's {@code check_local} panics when a callback runs under a {@code Local} borrow; here the callback
 * records a violation ({@link #assertClean()} fails with it) so the runtime is not disturbed mid-callback.
 */
final class Reentrant {
    /** The callbacks that can be armed; {@link #number} is the seed's constant, used in the failure message. */
    enum Callback {
        /** The seed's {@code Reentrant::CLONE}. */
        CLONE(1),
        /** The seed's {@code Reentrant::WAKE}. */
        WAKE(2),
        /** The seed's {@code Reentrant::DROP}. */
        DROP(3);

        final int number;

        Callback(int number) {
            this.number = number;
        }
    }

    private final Probe probe;
    /** Calls of {@code retain} (Rust clones), including one that threw. */
    final AtomicInteger clones = new AtomicInteger();
    /** Stored copies handed to the runtime (retains that returned). */
    final AtomicInteger retained = new AtomicInteger();
    /** Wakes, including one that threw. */
    final AtomicInteger wakes = new AtomicInteger();
    /** Releases of stored copies (Rust drops of runtime-held clones), including one that threw. */
    final AtomicInteger drops = new AtomicInteger();
    /** Calls of {@code willWake}. */
    final AtomicInteger equalityChecks = new AtomicInteger();
    private final AtomicInteger doubleUses = new AtomicInteger();
    private final AtomicInteger unretainedUses = new AtomicInteger();
    private final List<String> violations = new ArrayList<>();
    private final AtomicReference<Callback> armed = new AtomicReference<>();
    private final AtomicReference<RuntimeException> thrown = new AtomicReference<>();
    /** The seed's {@code on_clone}: run by every retain, outside any borrow; may register, poll and close. */
    volatile Runnable onClone;

    Reentrant(Probe probe) {
        this.probe = probe;
    }

    /**
     * A new waker of this fixture, not stored by anyone: the seed's {@code callbacks.waker()}.
     *
     * @return the waker
     */
    Waker waker() {
        return new Copy(false);
    }

    /**
     * Arms {@code callback} to throw once: the seed's {@code panic_callback.store}.
     *
     * @param callback the callback
     */
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

    int clones() {
        return clones.get();
    }

    int wakes() {
        return wakes.get();
    }

    int drops() {
        return drops.get();
    }

    /**
     * Stored copies neither woken nor released: the seed's {@code Arc::strong_count(&callbacks) - 1}.
     *
     * @return the count
     */
    int outstanding() {
        return retained.get() - wakes.get() - drops.get();
    }

    /** Fails if a callback ran inside a borrow, a copy was consumed twice, or a copy was never stored. */
    void assertClean() {
        List<String> seen;
        synchronized (violations) {
            seen = new ArrayList<>(violations);
        }
        if (!seen.isEmpty()) {
            throw new AssertionError("waker callbacks ran while the worker's state was borrowed: " + seen);
        }
        if (doubleUses.get() != 0) {
            throw new AssertionError(doubleUses.get() + " stored waker copies were consumed twice");
        }
        if (unretainedUses.get() != 0) {
            throw new AssertionError(unretainedUses.get() + " wakes or releases of copies the runtime never stored");
        }
    }

    /** {@link #assertClean()}, and every stored copy consumed: the seed's {@code strong_count == 1}. */
    void assertReleased() {
        assertClean();
        if (outstanding() != 0) {
            throw new AssertionError("stored waker copies leaked: retained " + retained + ", woken " + wakes
                    + ", released " + drops);
        }
    }

    /** The seed's {@code check_local}. */
    private void checkLocal(String callback) {
        if (probe.borrowed()) {
            synchronized (violations) {
                violations.add(callback + " on thread " + Thread.currentThread().getName());
            }
        }
    }

    /** The seed's {@code panic_once}: disarm first, so cleanup can use the remaining wakers. */
    private void panicOnce(Callback callback) {
        if (armed.compareAndSet(callback, null)) {
            RuntimeException failure = new IllegalStateException("waker callback panic " + callback.number);
            thrown.set(failure);
            throw failure;
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
            checkLocal("retain");
            clones.incrementAndGet();
            panicOnce(Callback.CLONE);
            Runnable action = onClone;
            if (action != null) {
                action.run();
            }
            retained.incrementAndGet();
            return new Copy(true);
        }

        @Override
        public void wake() {
            checkLocal("wake");
            consume();
            wakes.incrementAndGet();
            panicOnce(Callback.WAKE);
        }

        @Override
        public void release() {
            checkLocal("release");
            consume();
            drops.incrementAndGet();
            panicOnce(Callback.DROP);
        }

        @Override
        public boolean willWake(Waker other) {
            checkLocal("willWake");
            equalityChecks.incrementAndGet();
            return other instanceof Copy copy && copy.fixture() == Reentrant.this;
        }

        private Reentrant fixture() {
            return Reentrant.this;
        }
    }
}
