package dev.lockstep.demo.raft;

import java.util.List;

/**
 * Receives what a {@link RaftNode} decides, as it decides it: the hook a checker of Raft's safety properties (or a
 * nemesis that targets the leader) is built on. Each call is made on the node's fiber with the node's lock held, so
 * it must only record and return: no waiting, no calls back into the node. Under the simulator every node and the
 * controller share one thread, so an observer needs no locking there; a production node is given {@link #NONE}.
 */
public interface RaftObserver {
    /** Observes nothing. */
    RaftObserver NONE = new RaftObserver() {
    };

    /**
     * A lifetime of a node started (after recovery, before it serves).
     *
     * @param view a look at the node for this lifetime
     * @param recovery what recovery found, for traces
     */
    default void started(RaftView view, String recovery) {
    }

    /**
     * A node won an election.
     *
     * @param node the node's id
     * @param term the term it leads
     * @param log its log at that moment
     */
    default void becameLeader(int node, long term, List<Entry> log) {
    }

    /**
     * A node is about to grant a candidate its vote: decided, not yet written or answered (a vote it already gave that
     * candidate in that term is not reported again). The hook a nemesis that crashes a voter at its answer is built on.
     *
     * @param voter the id of the node granting its vote
     * @param candidate the id of the candidate
     * @param term the term of the vote
     */
    default void granting(int voter, int candidate, long term) {
    }

    /**
     * A leader advanced its commit index over an entry.
     *
     * @param leader the leader's id
     * @param term the leader's term: the entry is committed in this term
     * @param index the entry's index
     * @param entry the entry
     */
    default void committed(int leader, long term, long index, Entry entry) {
    }

    /**
     * A node applied a committed entry to its state machine (in index order, from 1 in each lifetime).
     *
     * @param node the node's id
     * @param index the entry's index
     * @param entry the entry
     */
    default void applied(int node, long index, Entry entry) {
    }

    /**
     * Whether the harness has stopped injecting faults and now measures liveness: then the node takes none of its
     * fault points' rare paths ({@link dev.lockstep.Search#faultPoint}), which are faults too, and does not reach
     * them (nothing is drawn). Called by the node's tasks under its lock, on any thread of its runtime.
     *
     * @return true once faults have stopped; false by default
     */
    default boolean quiet() {
        return false;
    }
}
