package dev.lockstep.testing;

import dev.lockstep.Context;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.random.RandomGenerator;

/**
 * The strike {@link ClusterNemesis.Disturbance#GRANTED_VOTES}: voters crashed just after the answer that granted a
 * candidate its vote, armed at the moment the protocol's vote hook says they grant it. The doc of the disturbance
 * says what it does and why.
 *
 * <p>Not thread-safe. The nemesis's task calls {@link #strike} and the protocol's nodes call {@link #granting} (through
 * the vote hook, with their lock held), all on the simulator's one thread, so the two meet without locking: what
 * {@link #granting} arms is read by the strike's next poll, and a grant made while no strike waits is ignored.
 */
final class GrantedVotes {
    /**
     * How long the strike waits, after the first grant it armed, for the candidate to claim the term: the other
     * votes it needs come within a disk write and a network delay.
     */
    private static final Duration WINNER_WAIT = Duration.ofMillis(3);

    private final Duration meanPause;
    private final IntSupplier leader;
    private final Consumer<String> events;
    /** The cluster of the strike that waits for grants, or null when none waits. */
    private SimCluster waiting;
    /** The first grant seen while waiting: the candidate and term whose voters are armed. */
    private ClusterNemesis.Vote struck;
    /** The voters armed at their grant to {@link #struck}'s candidate, in the order they granted. */
    private final List<SimNode> armed = new ArrayList<>();

    GrantedVotes(Duration meanPause, IntSupplier leader, Consumer<String> events) {
        this.meanPause = meanPause;
        this.leader = leader;
        this.events = events;
    }

    /**
     * The vote hook's listener: a node is about to grant {@code vote}. While a strike waits, the first grant names
     * the candidate and term struck, and each voter that grants that candidate that term is armed to crash just
     * after it answered: the answer it sends next is normally this grant (should another of its connections answer
     * first, the crash comes before the grant is sent, and the candidate never counts it). Draws nothing, so a run
     * whose nemesis has no vote strike is the same with the hook as without.
     */
    void granting(ClusterNemesis.Vote vote) {
        if (waiting == null || vote.voter() < 1 || vote.voter() > waiting.nodes().size()) {
            return;
        }
        if (struck == null) {
            struck = vote;
        } else if (vote.candidate() != struck.candidate() || vote.term() != struck.term()) {
            return;
        }
        SimNode voter = waiting.node(vote.voter());
        if (voter.state() == SimNode.State.RUNNING && voter.armed() == null && !armed.contains(voter)) {
            voter.crashAt(SimNode.IoBoundary.ANSWERED);
            armed.add(voter);
        }
    }

    /** The strike: see {@link ClusterNemesis.Disturbance#GRANTED_VOTES}. */
    void strike(Context ctx, SimControl control, SimCluster cluster, Duration length, RandomGenerator random,
            List<SimNode> down, NetworkSplit[] split) {
        struck = null;
        armed.clear();
        waiting = cluster;
        long waitedNanos = 0;
        SimNode winner = null;
        try {
            while (struck == null && waitedNanos < length.toNanos()) {
                ctx.sleep(PlacedStrikes.POLL);
                waitedNanos += PlacedStrikes.POLL.toNanos();
            }
            if (struck == null) {
                events.accept("no vote granted within " + length.toMillis() + " ms");
                return;
            }
            // Votes keep arriving while the candidate counts them: every voter that grants it in the window is armed.
            for (long waited = 0; winner == null && waited < WINNER_WAIT.toNanos();
                    waited += PlacedStrikes.POLL.toNanos()) {
                ctx.sleep(PlacedStrikes.POLL);
                SimNode leading = PlacedStrikes.running(cluster, leader == null ? ClusterNemesis.NO_LEADER
                        : leader.getAsInt());
                if (leading != null && leading.id() == struck.candidate()) {
                    winner = leading;
                }
            }
        } finally {
            // No voter is armed after this. Until the strike brings the armed voters back, they are in down, for the
            // nemesis to bring back (or disarm) should it be aborted.
            waiting = null;
            down.addAll(armed);
        }
        // The candidate that won on the votes is cut off before it tells anyone of its term: the voters that lost
        // their vote in the crash are back in the older term, and another node may win the same term with them.
        PlacedStrikes.VotersBack back = PlacedStrikes.cutWinnerThenBringBackVoters(ctx, control, cluster, winner,
                meanPause, random, armed, down, split);
        events.accept("vote of term " + struck.term() + " granted to node " + struck.candidate() + ": nodes "
                + NetworkSplit.ids(back.crashed()) + " of " + NetworkSplit.ids(armed) + " crashed after granting it,"
                + " back after " + back.outage().toMillis() + " ms" + (winner == null ? "; no winner"
                : "; " + split[0] + " for " + length.toMillis() + " ms"));
        ctx.sleep(length);
    }
}
