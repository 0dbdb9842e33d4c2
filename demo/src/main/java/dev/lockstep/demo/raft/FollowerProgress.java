package dev.lockstep.demo.raft;

import java.util.Arrays;

/**
 * A leader's bookkeeping of its followers (the Raft paper's {@code nextIndex[]} and {@code matchIndex[]}), and of the
 * read rounds that confirm it still leads: the next entry to send each member, the highest entry known replicated on
 * it, and the highest read round its replies have confirmed. Reset when the node wins an election.
 *
 * <p>Not thread-safe: the node calls it with its lock held.
 */
final class FollowerProgress {
    private final int self;
    private final long[] nextIndex;
    private final long[] matchIndex;
    private final long[] confirmedRound;
    private long readRound;

    /**
     * @param members the cluster's size
     * @param self this node's id, whose own slots are never read
     */
    FollowerProgress(int members, int self) {
        this.self = self;
        this.nextIndex = new long[members];
        this.matchIndex = new long[members];
        this.confirmedRound = new long[members];
    }

    /** A new leadership: every follower is sent from {@code lastIndex + 1} on, nothing known replicated. */
    void reset(long lastIndex) {
        Arrays.fill(nextIndex, lastIndex + 1);
        Arrays.fill(matchIndex, 0);
        Arrays.fill(confirmedRound, 0);
    }

    long nextIndex(int peer) {
        return nextIndex[peer - 1];
    }

    /** Whether {@code peer} has not yet confirmed read round {@code round}. */
    boolean unconfirmed(int peer, long round) {
        return round > confirmedRound[peer - 1];
    }

    /** The current read round: the last one a read started. */
    long readRound() {
        return readRound;
    }

    /** Starts a read round: the replies to AppendEntries sent from now on confirm it. */
    long newReadRound() {
        return ++readRound;
    }

    /** {@code peer} answered an AppendEntries of this term sent in read round {@code round}. */
    void answered(int peer, long round) {
        confirmedRound[peer - 1] = Math.max(confirmedRound[peer - 1], round);
    }

    /** {@code peer} holds every entry up to {@code index}. */
    void matched(int peer, long index) {
        matchIndex[peer - 1] = Math.max(matchIndex[peer - 1], index);
        nextIndex[peer - 1] = Math.max(nextIndex[peer - 1], index + 1);
    }

    /** {@code peer} refused an AppendEntries after {@code prevLogIndex}; its log ends at {@code peerLast}. */
    void refused(int peer, long prevLogIndex, long peerLast) {
        nextIndex[peer - 1] = Math.max(1, Math.min(prevLogIndex, peerLast + 1));
    }

    /** The highest index a majority holds, this leader's own log ending at {@code lastIndex}. */
    long majorityHolds(long lastIndex, int majority) {
        long[] held = new long[matchIndex.length];
        for (int member = 0; member < held.length; member++) {
            held[member] = member == self - 1 ? lastIndex : matchIndex[member];
        }
        Arrays.sort(held);
        return held[held.length - majority];
    }

    /** How many members, this leader included, have confirmed read round {@code round}. */
    int confirmations(long round) {
        int confirmed = 1;
        for (int member = 0; member < confirmedRound.length; member++) {
            confirmed += member != self - 1 && confirmedRound[member] >= round ? 1 : 0;
        }
        return confirmed;
    }
}
