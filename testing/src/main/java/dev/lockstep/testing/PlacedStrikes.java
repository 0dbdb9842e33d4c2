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
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * The two-step strikes of {@link ClusterNemesis}: a crash placed at the moment a node answered, followed at once by
 * what makes that answer count against the protocol. {@link ClusterNemesis.Disturbance#ACK_THEN_LEADER_LOSS} and
 * {@link ClusterNemesis.Disturbance#ANSWERED_VOTE} say what each does and why. Each leaves what it took down in
 * {@code down} and what it cut in {@code split[0]}, for the nemesis to bring back. Not thread-safe: the nemesis's
 * task calls it on the simulator's one thread.
 */
final class PlacedStrikes {
    /** How often a strike looks at the cluster while it waits: about one network delay of a local link. */
    static final Duration POLL = Duration.ofNanos(50_000);
    /** How long a strike waits, after a voter's crash, for the candidate it answered to claim the term. */
    private static final Duration WINNER_WAIT = Duration.ofMillis(1);

    private final Duration meanPause;
    private final IntSupplier leader;
    private final Supplier<ClusterNemesis.Contest> contest;
    private final Consumer<String> events;

    PlacedStrikes(Duration meanPause, IntSupplier leader, Supplier<ClusterNemesis.Contest> contest,
            Consumer<String> events) {
        this.meanPause = meanPause;
        this.leader = leader;
        this.contest = contest;
        this.events = events;
    }

    /** {@link ClusterNemesis.Disturbance#ACK_THEN_LEADER_LOSS}: see there. */
    void ackThenLeaderLoss(Context ctx, SimControl control, SimCluster cluster, Duration length,
            RandomGenerator random, List<SimNode> down, NetworkSplit[] split) {
        SimNode leading = running(cluster, leader == null ? ClusterNemesis.NO_LEADER : leader.getAsInt());
        if (leading == null) {
            events.accept("no leader to strike");
            return;
        }
        List<SimNode> followers = new ArrayList<>();
        for (SimNode node : cluster.nodes()) {
            if (node != leading) {
                followers.add(node);
            }
        }
        // The acknowledgers: with the leader, a bare majority. The other followers are cut off first, so that only
        // the acknowledgers (and the leader) can hold what the leader commits next.
        int acknowledgers = cluster.nodes().size() / 2;
        List<SimNode> armed = new ArrayList<>();
        while (armed.size() < acknowledgers && !followers.isEmpty()) {
            SimNode drawn = followers.remove(random.nextInt(followers.size()));
            if (drawn.state() != SimNode.State.RUNNING) {
                events.accept("follower node " + drawn.id() + " is not running: no strike");
                return;
            }
            armed.add(drawn);
        }
        List<SimNode> rest = new ArrayList<>(cluster.nodes());
        rest.removeAll(followers);
        if (!followers.isEmpty()) {
            split[0] = NetworkSplit.between(control, followers, rest);
        }
        for (SimNode node : armed) {
            down.add(node);
            node.crashAt(SimNode.IoBoundary.ANSWERED);
        }
        events.accept("leader node " + leading.id() + ": nodes " + NetworkSplit.ids(armed) + " armed to crash"
                + " once they answered" + (split[0] == null ? "" : ", " + split[0]));
        long waitedNanos = 0;
        while (!allDown(armed) && waitedNanos < length.toNanos()) {
            ctx.sleep(POLL);
            waitedNanos += POLL.toNanos();
        }
        if (!allDown(armed)) {
            events.accept("not every acknowledger answered in " + length.toMillis() + " ms");
            return;
        }
        // The crashed acknowledgers' answers were read: the leader counts them as soon as it runs, within this
        // poll. Its power goes now, before it can send what it committed to anyone else.
        ctx.sleep(POLL);
        if (leading.state() == SimNode.State.RUNNING || leading.state() == SimNode.State.PAUSED) {
            down.add(leading);
            leading.crash();
        }
        if (split[0] != null) {
            split[0].heal();
            split[0] = null;
        }
        Duration outage = Duration.ofNanos(1 + random.nextLong(Math.max(1, meanPause.toNanos() / 8)));
        ctx.sleep(outage);
        for (SimNode node : armed) {
            if (node.state() == SimNode.State.DOWN) {
                node.restart();
            }
        }
        // The leader stays down for at least two mean pauses, longer than an election among the others takes when
        // the mean pause is of the order of the protocol's election timeout.
        Duration leaderDown = length.plus(meanPause.multipliedBy(2));
        events.accept("power loss of leader node " + leading.id() + " after nodes " + NetworkSplit.ids(armed)
                + " answered; they are back after " + outage.toMillis() + " ms, the leader after "
                + leaderDown.toMillis() + " ms");
        ctx.sleep(leaderDown);
    }

    /** {@link ClusterNemesis.Disturbance#ANSWERED_VOTE}: see there. */
    void answeredVote(Context ctx, SimControl control, SimCluster cluster, Duration length, RandomGenerator random,
            List<SimNode> down, NetworkSplit[] split) {
        if (contest == null) {
            return;
        }
        ClusterNemesis.Contest seen = null;
        long waitedNanos = 0;
        while (seen == null && waitedNanos < length.toNanos()) {
            ClusterNemesis.Contest now = contest.get();
            if (now != null && running(cluster, now.first()) != null && running(cluster, now.second()) != null
                    && running(cluster, now.voter()) != null) {
                seen = now;
            } else {
                ctx.sleep(POLL);
                waitedNanos += POLL.toNanos();
            }
        }
        if (seen == null) {
            events.accept("no contested election within " + length.toMillis() + " ms");
            return;
        }
        SimNode voter = cluster.node(seen.voter());
        down.add(voter);
        voter.crashAt(SimNode.IoBoundary.ANSWERED);
        events.accept("election contested by nodes " + seen.first() + " and " + seen.second() + ": node "
                + voter.id() + " armed to crash once it answered");
        while (voter.state() != SimNode.State.DOWN && waitedNanos < length.toNanos()) {
            ctx.sleep(POLL);
            waitedNanos += POLL.toNanos();
        }
        if (voter.state() != SimNode.State.DOWN) {
            events.accept("node " + voter.id() + " answered nothing");
            return;
        }
        // The candidate that read the vote claims the term; cut it off before it tells the other candidate, which
        // then asks the restarted voter again in the same term.
        SimNode winner = null;
        for (long waited = 0; winner == null && waited < WINNER_WAIT.toNanos(); waited += POLL.toNanos()) {
            ctx.sleep(POLL);
            SimNode leading = running(cluster, leader == null ? ClusterNemesis.NO_LEADER : leader.getAsInt());
            if (leading != null && (leading.id() == seen.first() || leading.id() == seen.second())) {
                winner = leading;
            }
        }
        if (winner != null) {
            split[0] = NetworkSplit.isolate(control, winner, cluster.nodes());
        }
        Duration outage = Duration.ofNanos(1 + random.nextLong(Math.max(1, meanPause.toNanos() / 8)));
        ctx.sleep(outage);
        if (voter.state() == SimNode.State.DOWN) {
            voter.restart();
        }
        events.accept("node " + voter.id() + " crashed after answering, back after " + outage.toMillis() + " ms"
                + (winner == null ? "" : "; " + split[0] + " for " + length.toMillis() + " ms"));
        ctx.sleep(length);
    }

    private static boolean allDown(List<SimNode> nodes) {
        for (SimNode node : nodes) {
            if (node.state() != SimNode.State.DOWN) {
                return false;
            }
        }
        return true;
    }

    /** Node {@code id} if it is running, else null. */
    private static SimNode running(SimCluster cluster, int id) {
        if (id < 1 || id > cluster.nodes().size()) {
            return null;
        }
        SimNode node = cluster.node(id);
        return node.state() == SimNode.State.RUNNING ? node : null;
    }
}
