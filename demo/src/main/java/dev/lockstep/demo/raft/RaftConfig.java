package dev.lockstep.demo.raft;

import dev.lockstep.demo.kv.InjectedBug;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One node's configuration: who it is, the cluster's members and its timing.
 *
 * @param self this node's id, {@code 1 <= self <= members.size()}
 * @param members every node's address, node {@code i} at {@code members.get(i - 1)}; the same list on every node
 * @param heartbeat how often a leader sends AppendEntries to an idle follower
 * @param electionTimeoutMin the shortest election timeout; more than {@code heartbeat}
 * @param electionTimeoutMax the longest; each timeout is drawn uniformly in {@code [min, max]}
 * @param rpcTimeout how long a node waits for a peer's reply before it gives up on that request
 * @param bug a planted bug, or {@link InjectedBug#NONE}
 */
public record RaftConfig(int self, List<InetSocketAddress> members, Duration heartbeat, Duration electionTimeoutMin,
                         Duration electionTimeoutMax, Duration rpcTimeout, InjectedBug bug) {
    /**
     * Checks the fields.
     *
     * @throws IllegalArgumentException naming the bad value
     */
    public RaftConfig {
        members = List.copyOf(members);
        Objects.requireNonNull(bug, "bug");
        if (members.isEmpty()) {
            throw new IllegalArgumentException("a Raft cluster needs at least one member");
        }
        if (self < 1 || self > members.size()) {
            throw new IllegalArgumentException("self must be a member id in [1, " + members.size() + "], was " + self);
        }
        positive("heartbeat", heartbeat);
        positive("electionTimeoutMin", electionTimeoutMin);
        positive("rpcTimeout", rpcTimeout);
        if (electionTimeoutMin.compareTo(heartbeat) <= 0) {
            throw new IllegalArgumentException("electionTimeoutMin " + electionTimeoutMin + " must exceed heartbeat "
                    + heartbeat);
        }
        if (electionTimeoutMax.compareTo(electionTimeoutMin) < 0) {
            throw new IllegalArgumentException("electionTimeoutMax " + electionTimeoutMax + " is below"
                    + " electionTimeoutMin " + electionTimeoutMin);
        }
    }

    /**
     * A configuration with the simulator-scale timing the demo uses: heartbeat 5 ms, election timeouts 20 to 40 ms,
     * requests given up after 10 ms; no bug.
     *
     * @param self this node's id
     * @param members every node's address
     * @return the configuration
     */
    public static RaftConfig of(int self, List<InetSocketAddress> members) {
        return new RaftConfig(self, members, Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofMillis(40),
                Duration.ofMillis(10), InjectedBug.NONE);
    }

    /**
     * This configuration with other timing.
     *
     * @return the copy
     */
    public RaftConfig withTiming(Duration newHeartbeat, Duration newElectionMin, Duration newElectionMax,
                                 Duration newRpcTimeout) {
        return new RaftConfig(self, members, newHeartbeat, newElectionMin, newElectionMax, newRpcTimeout, bug);
    }

    /**
     * This configuration with a planted bug.
     *
     * @param newBug the bug; a bug of the key-value store is refused
     * @return the copy
     * @throws IllegalArgumentException naming a bug that is not Raft's
     */
    public RaftConfig withBug(InjectedBug newBug) {
        if (newBug != InjectedBug.NONE && !newBug.replication()) {
            throw new IllegalArgumentException("bug " + newBug.cliName() + " is not a Raft bug");
        }
        return new RaftConfig(self, members, heartbeat, electionTimeoutMin, electionTimeoutMax, rpcTimeout, newBug);
    }

    /** A majority of the members. */
    int majority() {
        return members.size() / 2 + 1;
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }
}
