package dev.lockstep.sim;

import dev.lockstep.sim.os.SimNetwork;

/**
 * The behaviour of a {@link SimNetwork}.
 *
 * @param defaultLink the delay of every link without its own profile ({@link SimNetwork#setLink})
 * @param connectTimeoutNanos how long a connect across a partition takes to fail with {@code ETIMEDOUT} (its
 *                            SYN or SYN-ACK is dropped, as a real partition drops packets), {@code > 0}
 * @param breakRate the chance that a send breaks its connection instead: both ends are reset, the send and
 *                  every later send and receive on either end fail {@code ECONNRESET}; in {@code [0, 1]}
 */
public record NetworkConfig(LinkProfile defaultLink, long connectTimeoutNanos, double breakRate) {

    /** Local links, a 1 s connect timeout across partitions, no random breaks. */
    public static final NetworkConfig DEFAULT = new NetworkConfig(LinkProfile.LOCAL, 1_000_000_000L, 0.0);

    /**
     * Validates the fields.
     *
     * @throws InvalidConfigException naming the field and its value
     */
    public NetworkConfig {
        if (defaultLink == null) {
            throw new InvalidConfigException("NetworkConfig.defaultLink",
                    "NetworkConfig.defaultLink must not be null");
        }
        if (connectTimeoutNanos <= 0) {
            throw new InvalidConfigException("NetworkConfig.connectTimeoutNanos",
                    "NetworkConfig.connectTimeoutNanos must be > 0, was " + connectTimeoutNanos);
        }
        StorageFaults.requireRate("NetworkConfig", "breakRate", breakRate);
    }

    /**
     * This configuration with another default link.
     *
     * @param link the link profile
     * @return the new configuration
     */
    public NetworkConfig withDefaultLink(LinkProfile link) {
        return new NetworkConfig(link, connectTimeoutNanos, breakRate);
    }

    /**
     * This configuration with another break rate.
     *
     * @param rate the chance a send breaks its connection
     * @return the new configuration
     */
    public NetworkConfig withBreakRate(double rate) {
        return new NetworkConfig(defaultLink, connectTimeoutNanos, rate);
    }

    /**
     * This configuration with another connect timeout.
     *
     * @param nanos the time a connect across a partition takes to fail
     * @return the new configuration
     */
    public NetworkConfig withConnectTimeoutNanos(long nanos) {
        return new NetworkConfig(defaultLink, nanos, breakRate);
    }
}
