package dev.lockstep.demo.raft;

import dev.lockstep.Context;
import dev.lockstep.demo.kv.InjectedBug;
import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;

/**
 * A node's randomized election timeouts, and the one place the Raft draws randomness. The generator of a node's
 * lifetime is seeded from {@link RaftConfig#randomSeed()}, the node's id and its clock when it starts: under the
 * simulator all three come from the run's seed (the controller draws the configuration's seed from it, and the
 * clock is simulated), so the timeouts replay with the seed, and a restarted node does not repeat its last
 * lifetime's timeouts; in production the seed is whatever the launcher passes.
 */
final class ElectionTimeouts {
    private final SplittableRandom random;
    private final long minNanos;
    private final long spanNanos;

    private ElectionTimeouts(long seed, RaftConfig config) {
        this.random = new SplittableRandom(seed);
        this.minNanos = config.electionTimeoutMin().toNanos();
        this.spanNanos = config.bug() == InjectedBug.FIXED_ELECTION_TIMEOUT ? 0
                : config.electionTimeoutMax().toNanos() - minNanos;
    }

    /**
     * The timeouts of one lifetime of a node.
     *
     * @param ctx the node's context (its clock)
     * @param config the node's configuration
     * @return the timeouts
     */
    static ElectionTimeouts forLifetime(Context ctx, RaftConfig config) {
        Instant now = ctx.now();
        long seed = config.randomSeed() * 0x9E3779B97F4A7C15L + config.self() * 0xBF58476D1CE4E5B9L
                + now.getEpochSecond() * 1_000_000_007L + now.getNano();
        return new ElectionTimeouts(seed, config);
    }

    /** The next election timeout. */
    Duration next() {
        return Duration.ofNanos(minNanos + (spanNanos == 0 ? 0 : random.nextLong(spanNanos + 1)));
    }
}
