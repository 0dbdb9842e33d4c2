package dev.lockstep.uring;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The plain thread of the close races in this module's stress tests: it waits until the racing fibers have begun
 * (the close must find them inside their calls, not before the first), spins a further while the test drew, so
 * that the close lands anywhere in a call, then closes. Its waits spin, since the race wants a close at any
 * instruction; the wait for the beginning is bounded by {@link #BEGIN_LIMIT}, after which it closes anyway, ending
 * the race rather than leaving a spinning thread behind its test.
 */
final class RacingCloser {
    /** How long the closer waits for the racing fibers to begin before it closes without them. */
    static final Duration BEGIN_LIMIT = Duration.ofSeconds(30);

    private RacingCloser() {
    }

    /**
     * Starts the closer.
     *
     * @param begun true once the racing fibers have begun; read by the closer's thread
     * @param spinNanos how long to spin after that before closing
     * @param close the close
     * @return the closer's thread, for the test to join
     */
    static Thread start(BooleanSupplier begun, long spinNanos, Runnable close) {
        return Thread.ofPlatform().name("racing-closer").start(() -> {
            long giveUp = System.nanoTime() + BEGIN_LIMIT.toNanos();
            while (!begun.getAsBoolean() && System.nanoTime() - giveUp < 0) {
                Thread.onSpinWait();
            }
            long until = System.nanoTime() + spinNanos;
            while (System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
            close.run();
        });
    }
}
