package dev.lockstep.sim;

/**
 * The one-way delay of a simulated network link: each delivery takes {@code latencyNanos} plus a seeded jitter
 * drawn uniformly from {@code [-jitterNanos, +jitterNanos]}. Deliveries on one connection stay in order even
 * when jitter would reorder them: a segment never arrives before the one sent before it.
 *
 * @param latencyNanos the mean one-way delay, in {@code [0, MAX_LATENCY_NANOS]} (a day)
 * @param jitterNanos the largest deviation from it, in {@code [0, latencyNanos]} so that no delivery precedes
 *                    its send
 */
public record LinkProfile(long latencyNanos, long jitterNanos) {

    /**
     * The longest latency a link takes, a day: a simulated time plus a latency and its jitter then cannot overflow
     * (a latency near {@code Long.MAX_VALUE} wrapped to no delay at all).
     */
    public static final long MAX_LATENCY_NANOS = 86_400_000_000_000L;

    /** A local link: 50 µs each way, ±10 µs. */
    public static final LinkProfile LOCAL = new LinkProfile(50_000, 10_000);

    /**
     * Validates the fields.
     *
     * @throws InvalidConfigException naming the field and its value if latency is negative or above a day, or
     *                                  jitter is negative or larger than latency
     */
    public LinkProfile {
        if (latencyNanos < 0) {
            throw new InvalidConfigException("LinkProfile.latencyNanos",
                    "LinkProfile.latencyNanos must be >= 0, was " + latencyNanos);
        }
        if (latencyNanos > MAX_LATENCY_NANOS) {
            throw new InvalidConfigException("LinkProfile.latencyNanos",
                    "LinkProfile.latencyNanos must be at most " + MAX_LATENCY_NANOS + " (a day), was " + latencyNanos);
        }
        if (jitterNanos < 0 || jitterNanos > latencyNanos) {
            throw new InvalidConfigException("LinkProfile.jitterNanos",
                    "LinkProfile.jitterNanos must be in [0, latencyNanos = "
                    + latencyNanos + "], was " + jitterNanos);
        }
    }
}
