package dev.lockstep.demo.raft;

import java.util.List;

/**
 * A read-only look at one lifetime of a {@link RaftNode}, for checkers and for fault injection that targets the
 * leader. Read it only from the thread that runs the node (under the simulator, the controller's: the simulation has
 * one thread); a production node hands out none.
 */
public interface RaftView {
    /** What a node is in its current term. */
    enum Role {
        /** Follows a leader, or waits for one. */
        FOLLOWER,
        /** Asks for votes in its term. */
        CANDIDATE,
        /** Leads its term. */
        LEADER
    }

    /**
     * The node's id.
     *
     * @return the id
     */
    int id();

    /**
     * The node's role now.
     *
     * @return the role
     */
    Role role();

    /**
     * The node's current term.
     *
     * @return the term
     */
    long term();

    /**
     * The node it voted for in its current term.
     *
     * @return the node's id, 0 for none yet
     */
    int votedFor();

    /**
     * The highest index the node knows committed.
     *
     * @return the commit index, 0 for none
     */
    long commitIndex();

    /**
     * A copy of the node's log.
     *
     * @return the entries, entry {@code i} at {@code get(i - 1)}
     */
    List<Entry> log();
}
