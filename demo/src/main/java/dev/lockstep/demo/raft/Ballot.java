package dev.lockstep.demo.raft;

import java.util.Arrays;

/**
 * A candidate's election: which members granted their vote in its term (itself first), and which members answered
 * its RequestVote in which term, so that each is asked once per term. Not thread-safe: the node calls it with its
 * lock held.
 */
final class Ballot {
    private final int self;
    private final boolean[] granted;
    private final long[] answeredIn;

    /**
     * @param members the cluster's size
     * @param self this node's id
     */
    Ballot(int members, int self) {
        this.self = self;
        this.granted = new boolean[members];
        this.answeredIn = new long[members];
    }

    /** A new election of this node: only its own vote counted. */
    void start() {
        Arrays.fill(granted, false);
        granted[self - 1] = true;
    }

    /** Whether {@code peer} has answered this node's RequestVote of {@code term}. */
    boolean answered(int peer, long term) {
        return answeredIn[peer - 1] == term;
    }

    /** {@code peer} answered this node's RequestVote of {@code term}, granting its vote or not. */
    void answer(int peer, long term, boolean grant) {
        answeredIn[peer - 1] = term;
        granted[peer - 1] |= grant;
    }

    /** The votes granted in the current election, this node's own included. */
    int votes() {
        int count = 0;
        for (boolean vote : granted) {
            count += vote ? 1 : 0;
        }
        return count;
    }
}
