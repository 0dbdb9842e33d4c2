package dev.lockstep.demo.raft;

import dev.lockstep.Search;

/**
 * A node's fault points: rare but legal paths a simulated run may take ({@link Search#faultPoint}; never on
 * runtime-uring), to widen what a search reaches. None of them breaks a Raft invariant: the unmutated Raft passes
 * with them. Once the observer says the harness is {@linkplain RaftObserver#quiet() quiet} they are not reached, as
 * FoundationDB turns BUGGIFY off for its quiescence check, so that the liveness bound after the faults stop measures
 * the Raft. The client's own point, {@code raft.client-ask-another}, is {@link RaftClient}'s.
 *
 * <p>Called by the node's tasks with its lock held, or by its connection tasks.
 */
final class RarePaths {
    /** A leader sends one entry where it could send a batch; the rest goes in the next AppendEntries. */
    static final String APPEND_CUT_SHORT = "raft.append-cut-short";
    /** A node handles a peer's request and the answer is lost, as on a network that drops it. */
    static final String DROP_PEER_REPLY = "raft.drop-peer-reply";
    /** A leader's commit index moves at a later message instead of this one. */
    static final String LEADER_COMMIT_LATE = "raft.leader-commit-late";
    /** A follower's commit index moves at a later message instead of this one. */
    static final String FOLLOWER_COMMIT_LATE = "raft.follower-commit-late";
    /** A follower's election timeout cut short, as a slow leader's follower may see. */
    static final String ELECTION_EARLY = "raft.election-early";
    /**
     * A follower asked for its vote in a new term stands in that term itself, so two candidates contest it: a node
     * may vote once in a term, for anyone, itself included.
     */
    static final String CONTEST_ELECTION = "raft.contest-election";
    /** A node handles an AppendEntries after the leader gave up on it, so a newer one may be handled first. */
    static final String APPEND_HANDLED_LATE = "raft.append-handled-late";
    /** A leader sends a batch from further back than the follower needs; the follower skips what it has. */
    static final String APPEND_FROM_EARLIER = "raft.append-from-earlier";
    /** The sync of what a peer's request changed takes a while longer, as on a slow disk ({@link PeerSyncs}). */
    static final String SYNC_SLOW = "raft.sync-slow";

    private final RaftObserver observer;

    RarePaths(RaftObserver observer) {
        this.observer = observer;
    }

    /**
     * Whether to take the rare path {@code name} now: false once the harness is quiet, without reaching the point.
     *
     * @param name one of this class's constants
     * @return true to take it
     */
    boolean take(String name) {
        return !observer.quiet() && Search.faultPoint(name);
    }
}
