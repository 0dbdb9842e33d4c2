package dev.lockstep.sim;

/**
 * The one-way delay of a simulated network link: each delivery takes {@code latencyNanos} plus a seeded jitter
 * drawn uniformly from {@code [-jitterNanos, +jitterNanos]}. Deliveries on one connection stay in order even
 * when jitter would reorder them: a segment never arrives before the one sent before it.
 *
 * @param latencyNanos the mean one-way delay, {@code >= 0}
 * @param jitterNanos the largest deviation from it, in {@code [0, latencyNanos]} so that no delivery precedes
 *                    its send
 */
public record LinkProfile(long latencyNanos, long jitterNanos) {

    /** A local link: 50 µs each way, ±10 µs. */
    public static final LinkProfile LOCAL = new LinkProfile(50_000, 10_000);

    /**
     * Validates the fields.
     *
     * @throws InvalidConfigException naming the field and its value if latency is negative or jitter is
     *                                  negative or larger than latency
     */
    public LinkProfile {
        if (latencyNanos < 0) {
            throw new InvalidConfigException("LinkProfile.latencyNanos",
                    "LinkProfile.latencyNanos must be >= 0, was " + latencyNanos);
        }
        if (jitterNanos < 0 || jitterNanos > latencyNanos) {
            throw new InvalidConfigException("LinkProfile.jitterNanos",
                    "LinkProfile.jitterNanos must be in [0, latencyNanos = "
                    + latencyNanos + "], was " + jitterNanos);
        }
    }
}
