package dev.lockstep.sim.os;

/**
 * Simulated time: nanoseconds since the Unix epoch, moved only by the simulator's explicit
 * {@link #advanceTo} and never backwards.
 *
 * <p>Nothing here reads a real clock: a simulated second takes no real time, and a run's timeline depends only
 * on its seed and configuration. The scheduler advances the clock when nothing is runnable, straight to the
 * next event (a timer, or a kernel completion from {@link SimRing#nextEventNanos()}).
 *
 * <p>Not thread-safe: the simulator uses it from its one thread.
 */
public final class SimClock {

    /** The default start: the Unix epoch. */
    public static final long EPOCH = 0;

    /**
     * The latest time a run reaches, in epoch nanoseconds (2262-03-12T23:47:16.854775807Z): thirty days before
     * epoch nanoseconds overflow a {@code long}, so that every latency the simulator adds to the time (a request's
     * or a link's, at most a day each) still fits. A run whose time limit lies beyond it ends here as timed out.
     * Deadlines past it (a sleep of {@code Duration.ofDays(100_000)}, a {@code sleepUntil(Instant.MAX)}) never
     * come, as the engine saturates them at {@code Long.MAX_VALUE}.
     */
    public static final long LAST_NANOS = Long.MAX_VALUE - 30L * 86_400_000_000_000L;

    private long nowNanos;

    /** A clock starting at the Unix epoch. */
    public SimClock() {
        this(EPOCH);
    }

    /**
     * A clock starting at the given time.
     *
     * @param startNanos nanoseconds since the epoch, {@code >= 0}
     * @throws IllegalArgumentException if {@code startNanos} is negative (before the epoch)
     */
    public SimClock(long startNanos) {
        if (startNanos < 0) {
            throw new IllegalArgumentException("SimClock.startNanos must be >= 0, was " + startNanos);
        }
        this.nowNanos = startNanos;
    }

    /**
     * The current simulated time.
     *
     * @return nanoseconds since the epoch
     */
    public long nowNanos() {
        return nowNanos;
    }

    /**
     * Moves time forward to {@code nanos}. Advancing to the current time is a no-op.
     *
     * @param nanos the new time, {@code >= nowNanos()}
     * @throws IllegalArgumentException if {@code nanos} is in the past: simulated time never goes backwards
     */
    public void advanceTo(long nanos) {
        if (nanos < nowNanos) {
            throw new IllegalArgumentException(
                    "SimClock cannot go backwards: now " + nowNanos + " ns, asked for " + nanos + " ns");
        }
        nowNanos = nanos;
    }

    /**
     * Moves time forward by {@code nanos}.
     *
     * @param nanos the step, {@code >= 0}
     * @throws IllegalArgumentException if the step is negative or the time would overflow
     */
    public void advanceBy(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("SimClock step must be >= 0, was " + nanos);
        }
        if (nowNanos > Long.MAX_VALUE - nanos) {
            throw new IllegalArgumentException("SimClock would overflow: now " + nowNanos + " ns plus " + nanos);
        }
        advanceTo(nowNanos + nanos);
    }

    @Override
    public String toString() {
        return "SimClock(" + nowNanos + " ns)";
    }
}
