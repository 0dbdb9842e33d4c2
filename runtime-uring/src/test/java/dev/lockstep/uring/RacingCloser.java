package dev.lockstep.uring;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The plain thread of the close races in this module's stress tests: it waits until the racing fibers have begun
 * (the close must find them inside their calls, not before the first), spins a further while the test drew, so
 * that the close lands anywhere in a call, then closes. Its waits spin, since the race wants a close at any
 * instruction; the wait for the beginning is bounded by {@link #BEGIN_LIMIT}, after which it closes anyway, ending
 * the race rather than leaving a spinning thread behind its test, and {@link #join()} reports that the round did
 * not race, for the test to fail it.
 */
final class RacingCloser {
    /** How long the closer waits for the racing fibers to begin before it closes without them. */
    static final Duration BEGIN_LIMIT = Duration.ofSeconds(30);

    private final Thread thread;
    private final Duration beginLimit;
    /** Written by the closer's thread before it ends; read by {@link #join()} after the join, which orders it. */
    private boolean gaveUp;

    private RacingCloser(BooleanSupplier begun, long spinNanos, Runnable close, Duration beginLimit) {
        this.beginLimit = beginLimit;
        this.thread = Thread.ofPlatform().name("racing-closer").unstarted(() -> {
            long giveUp = System.nanoTime() + beginLimit.toNanos();
            boolean began;
            while (!(began = begun.getAsBoolean()) && System.nanoTime() - giveUp < 0) {
                Thread.onSpinWait();
            }
            gaveUp = !began;
            long until = System.nanoTime() + spinNanos;
            while (System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
            close.run();
        });
    }

    /**
     * Starts the closer, which waits at most {@link #BEGIN_LIMIT} for the racing fibers.
     *
     * @param begun true once the racing fibers have begun; read by the closer's thread
     * @param spinNanos how long to spin after that before closing
     * @param close the close
     * @return the closer, for the test to {@link #join()}
     */
    static RacingCloser start(BooleanSupplier begun, long spinNanos, Runnable close) {
        return start(begun, spinNanos, close, BEGIN_LIMIT);
    }

    /**
     * Starts the closer with a given bound on the wait for the racing fibers.
     *
     * @param begun true once the racing fibers have begun; read by the closer's thread
     * @param spinNanos how long to spin after that before closing
     * @param close the close
     * @param beginLimit how long to wait for {@code begun} before closing without a race
     * @return the closer, for the test to {@link #join()}
     */
    static RacingCloser start(BooleanSupplier begun, long spinNanos, Runnable close, Duration beginLimit) {
        RacingCloser closer = new RacingCloser(begun, spinNanos, close, beginLimit);
        closer.thread.start();
        return closer;
    }

    /**
     * Waits until the closer has closed.
     *
     * @return null if the close raced the fibers, else why the round did not race (the fibers never began within
     *     the limit), for the test to report as its failure
     * @throws IllegalStateException if the calling thread is interrupted while it waits
     */
    String join() {
        try {
            thread.join();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while joining the racing closer", interrupted);
        }
        return gaveUp ? "the racing fibers never began within " + beginLimit
                + ", so the closer closed without a race" : null;
    }
}
