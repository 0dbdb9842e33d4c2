package dev.lockstep.demo.raft;

import dev.lockstep.Context;
import dev.lockstep.demo.kv.InjectedBug;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * A node's randomized election timeouts, and the one place the Raft draws randomness: from {@link Context#random()},
 * which the simulator seeds and records (so a seed decides every timeout and replays it) and production backs with
 * an unseeded generator.
 */
final class ElectionTimeouts {
    private final RandomGenerator random;
    private final long minNanos;
    private final long spanNanos;

    private ElectionTimeouts(RandomGenerator random, RaftConfig config) {
        this.random = random;
        this.minNanos = config.electionTimeoutMin().toNanos();
        this.spanNanos = config.bug() == InjectedBug.FIXED_ELECTION_TIMEOUT ? 0
                : config.electionTimeoutMax().toNanos() - minNanos;
    }

    /**
     * The timeouts of one lifetime of a node.
     *
     * @param ctx the node's context; its generator is drawn from by the node's tasks
     * @param config the node's configuration
     * @return the timeouts
     */
    static ElectionTimeouts forLifetime(Context ctx, RaftConfig config) {
        return new ElectionTimeouts(ctx.random(), config);
    }

    /** The next election timeout: nothing is drawn for a fixed one. */
    Duration next() {
        return Duration.ofNanos(minNanos + (spanNanos == 0 ? 0 : random.nextLong(spanNanos + 1)));
    }
}
