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
 * The placed strikes of {@link ClusterNemesis} ({@link ClusterNemesis#PLACED}): a crash or a cut placed at the moment
 * the protocol's hooks name, followed at once by what makes it count against the protocol.
 * {@link ClusterNemesis.Disturbance#ACK_THEN_LEADER_LOSS}, {@link ClusterNemesis.Disturbance#ANSWERED_VOTE},
 * {@link ClusterNemesis.Disturbance#ANSWERED_VOTES} and {@link ClusterNemesis.Disturbance#OLD_LEADER_RETURNS} say
 * what each does and why (the {@link ClusterNemesis#STRIKES} are placed the same way). Each leaves what it took down in
 * {@code down} and what it cut in {@code split} (two cuts at most), for the nemesis to bring back. The nemesis calls
 * each only with the hooks it needs ({@link NemesisHooks}): the leader hook, or the contest hook for the vote
 * strikes. Not thread-safe: the nemesis's task calls it on the simulator's one thread.
 */
final class PlacedStrikes {
    /** How often a strike looks at the cluster while it waits: about one network delay of a local link. */
    static final Duration POLL = Duration.ofNanos(50_000);
    /** How long {@link ClusterNemesis.Disturbance#ANSWERED_VOTE} waits, after the voter's crash, for a winner. */
    private static final Duration WINNER_WAIT = Duration.ofMillis(1);
    /**
     * How long {@link ClusterNemesis.Disturbance#ANSWERED_VOTES} waits, after a voter's first crash, for a candidate
     * to claim the term: the other votes it needs come within a disk write and a network delay.
     */
    private static final Duration WINNER_WAIT_OF_EVERY_VOTER = Duration.ofMillis(3);

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
        SimNode leading = running(cluster, leader.getAsInt());
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
        while (!allCrashed(armed) && waitedNanos < length.toNanos()) {
            ctx.sleep(POLL);
            waitedNanos += POLL.toNanos();
        }
        if (!allCrashed(armed)) {
            events.accept("not every acknowledger answered in " + length.toMillis() + " ms");
            return;
        }
        // The crashed acknowledgers' answers were read: the leader counts them as soon as it runs, within this
        // poll. Its power goes now, before it can send what it committed to anyone else.
        ctx.sleep(POLL);
        boolean leaderLost = leading.state() == SimNode.State.RUNNING || leading.state() == SimNode.State.PAUSED;
        if (leaderLost) {
            down.add(leading);
            leading.crash();
        }
        if (split[0] != null) {
            split[0].heal();
            split[0] = null;
        }
        Duration outage = Duration.ofNanos(1 + random.nextLong(Math.max(1, meanPause.toNanos() / 8)));
        ctx.sleep(outage);
        // The acknowledgers are back now, so they leave down: the nemesis has only the leader left to bring back (and
        // an acknowledger that fail-stopped since, which it restarts as a fail-stop).
        List<SimNode> back = new ArrayList<>();
        List<SimNode> failStopped = new ArrayList<>();
        for (SimNode node : armed) {
            if (crashed(node)) {
                node.restart();
                down.remove(node);
                back.add(node);
            } else if (node.state() != SimNode.State.DOWN) {
                down.remove(node);
                back.add(node);
            } else {
                failStopped.add(node);
            }
        }
        // The leader stays down for at least two mean pauses, longer than an election among the others takes when
        // the mean pause is of the order of the protocol's election timeout.
        Duration leaderDown = length.plus(meanPause.multipliedBy(2));
        events.accept(answeredLine(leading.id(), leaderLost, NetworkSplit.ids(armed), NetworkSplit.ids(back),
                NetworkSplit.ids(failStopped), outage, leaderDown));
        ctx.sleep(leaderDown);
    }

    /**
     * The line of one {@link ClusterNemesis.Disturbance#ACK_THEN_LEADER_LOSS}: which acknowledgers are back after
     * the outage, and apart from them those that fail-stopped instead and stay down until the nemesis restarts them
     * as fail-stops.
     */
    static String answeredLine(int leader, boolean leaderLost, List<Integer> armed, List<Integer> back,
            List<Integer> failStopped, Duration outage, Duration leaderDown) {
        String acknowledgers = failStopped.isEmpty() ? "they are back after " + outage.toMillis() + " ms"
                : (back.isEmpty() ? "" : "nodes " + back + " are back after " + outage.toMillis() + " ms, ")
                        + "nodes " + failStopped + " fail-stopped and stay down";
        return (leaderLost ? "power loss of leader node " + leader : "leader node " + leader + " already down")
                + " after nodes " + armed + " answered; " + acknowledgers
                + (leaderLost ? ", the leader after " + leaderDown.toMillis() + " ms" : "");
    }

    /**
     * {@link ClusterNemesis.Disturbance#ANSWERED_VOTE}, or with {@code everyVoter}
     * {@link ClusterNemesis.Disturbance#ANSWERED_VOTES}: see there. Both draw the same.
     */
    void answeredVote(Context ctx, SimControl control, SimCluster cluster, Duration length, RandomGenerator random,
            List<SimNode> down, NetworkSplit[] split, boolean everyVoter) {
        List<Integer> candidates = null;
        SimNode voter = null;
        long waitedNanos = 0;
        while (candidates == null && waitedNanos < length.toNanos()) {
            ClusterNemesis.Contest now = contest.get();
            if (now != null && running(cluster, now.first()) != null && running(cluster, now.second()) != null
                    && running(cluster, now.voter()) != null) {
                candidates = List.of(now.first(), now.second());
                voter = cluster.node(now.voter());
            } else {
                ctx.sleep(POLL);
                waitedNanos += POLL.toNanos();
            }
        }
        if (candidates == null) {
            events.accept("no contested election within " + length.toMillis() + " ms");
            return;
        }
        // With everyVoter, every running node but the candidates is armed: a voter that answers loses what it did not
        // sync, and with five nodes one vote does not decide.
        List<SimNode> armed = new ArrayList<>();
        for (SimNode node : cluster.nodes()) {
            if (!candidates.contains(node.id()) && node.state() == SimNode.State.RUNNING
                    && (everyVoter || node == voter)) {
                armed.add(node);
            }
        }
        if (armed.isEmpty()) {
            return;
        }
        for (SimNode node : armed) {
            down.add(node);
            node.crashAt(SimNode.IoBoundary.ANSWERED);
        }
        events.accept("election contested by nodes " + candidates + ": nodes " + NetworkSplit.ids(armed)
                + " armed to crash once they answered");
        while (noneCrashed(armed) && waitedNanos < length.toNanos()) {
            ctx.sleep(POLL);
            waitedNanos += POLL.toNanos();
        }
        if (noneCrashed(armed)) {
            events.accept("nodes " + NetworkSplit.ids(armed) + " answered nothing");
            return;
        }
        // The candidate that read the votes claims the term; cut it off before it tells the other candidate, which
        // then asks the restarted voters again in the same term.
        SimNode winner = null;
        long winnerWait = (everyVoter ? WINNER_WAIT_OF_EVERY_VOTER : WINNER_WAIT).toNanos();
        for (long waited = 0; winner == null && waited < winnerWait; waited += POLL.toNanos()) {
            ctx.sleep(POLL);
            SimNode leading = running(cluster, leader == null ? ClusterNemesis.NO_LEADER : leader.getAsInt());
            if (leading != null && candidates.contains(leading.id())) {
                winner = leading;
            }
        }
        VotersBack back = cutWinnerThenBringBackVoters(ctx, control, cluster, winner, meanPause, random, armed, down,
                split);
        events.accept("nodes " + NetworkSplit.ids(back.crashed()) + " crashed after answering, back after "
                + back.outage().toMillis() + " ms" + (winner == null ? "" : "; " + split[0] + " for "
                + length.toMillis() + " ms"));
        ctx.sleep(length);
    }

    /**
     * What {@link #cutWinnerThenBringBackVoters} did.
     *
     * @param outage how long the crashed voters were down
     * @param crashed the armed voters that crashed and were restarted, in the order they were armed
     */
    record VotersBack(Duration outage, List<SimNode> crashed) {
    }

    /**
     * The end of a vote strike ({@link ClusterNemesis.Disturbance#ANSWERED_VOTE},
     * {@link ClusterNemesis.Disturbance#ANSWERED_VOTES}, {@link ClusterNemesis.Disturbance#GRANTED_VOTES}): cuts the
     * winner, if any, off from every node into {@code split[0]}, waits a drawn outage of up to {@code meanPause / 8},
     * then restarts the armed voters that crashed and disarms the others. Every armed voter is back then, so each
     * leaves {@code down}, which keeps only what the nemesis still has to bring back (a voter a fail-stop took down,
     * which the nemesis restarts as a fail-stop); should the strike be aborted before, {@code down} still holds them
     * and the nemesis brings them back.
     */
    static VotersBack cutWinnerThenBringBackVoters(Context ctx, SimControl control, SimCluster cluster,
            SimNode winner, Duration meanPause, RandomGenerator random, List<SimNode> armed, List<SimNode> down,
            NetworkSplit[] split) {
        if (winner != null) {
            split[0] = NetworkSplit.isolate(control, winner, cluster.nodes());
        }
        Duration outage = Duration.ofNanos(1 + random.nextLong(Math.max(1, meanPause.toNanos() / 8)));
        ctx.sleep(outage);
        List<SimNode> crashed = new ArrayList<>();
        for (SimNode node : armed) {
            if (crashed(node)) {
                crashed.add(node);
                node.restart();
            } else if (node.state() == SimNode.State.DOWN) {
                continue;   // a fail-stop took it down: the nemesis restarts it as one
            } else {
                node.disarm();
            }
            down.remove(node);
        }
        return new VotersBack(outage, crashed);
    }

    private static boolean noneCrashed(List<SimNode> nodes) {
        for (SimNode node : nodes) {
            if (crashed(node)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code node} is down from a crash, its armed one or the strike's, and not from a fail-stop of its own:
     * a node that fail-stopped answered nothing, and the nemesis restarts it as a fail-stop (counted, with its
     * failure).
     */
    static boolean crashed(SimNode node) {
        return node.state() == SimNode.State.DOWN && node.failure() == null;
    }

    /** {@link ClusterNemesis.Disturbance#OLD_LEADER_RETURNS}: see there. */
    void oldLeaderReturns(Context ctx, SimControl control, SimCluster cluster, RandomGenerator random,
            List<SimNode> down, NetworkSplit[] split) {
        SimNode first = running(cluster, leader.getAsInt());
        if (first == null) {
            events.accept("no leader to strike");
            return;
        }
        long bound = meanPause.toNanos() * 4;
        // The old leader's side: a bare minority, so that what it takes there is on too few nodes to commit.
        List<SimNode> side = new ArrayList<>(List.of(first));
        List<SimNode> others = new ArrayList<>(cluster.nodes());
        others.remove(first);
        while (side.size() < (cluster.nodes().size() - 1) / 2) {
            side.add(others.remove(random.nextInt(others.size())));
        }
        NetworkSplit oldSide = NetworkSplit.between(control, side, others);
        split[0] = oldSide;
        Duration taking = Duration.ofNanos(1 + random.nextLong(Math.max(1, meanPause.toNanos() / 4)));
        events.accept("leader node " + first.id() + " cut off with " + oldSide + " for " + taking.toMillis()
                + " ms, then powered off");
        ctx.sleep(taking);
        if (first.state() == SimNode.State.RUNNING || first.state() == SimNode.State.PAUSED) {
            down.add(first);
            first.crash();
        }
        // A leader of the majority's side: cut off alone at once, so that what it takes stays its own.
        SimNode second = awaitLeader(ctx, cluster, bound, node -> others.contains(node));
        if (second == null) {
            events.accept("no leader on the majority's side of " + oldSide + " within " + bound / 1_000_000 + " ms");
            return;
        }
        // Both cuts stand for a while: no side has a majority, and the clients, whose calls to the old leader
        // fail, find the new one, which takes their commands in its term.
        split[1] = NetworkSplit.isolate(control, second, cluster.nodes());
        Duration alone = Duration.ofNanos(meanPause.toNanos() / 4 + random.nextLong(Math.max(1,
                meanPause.toNanos() * 3 / 4)));
        events.accept("new leader node " + second.id() + " isolated for " + alone.toMillis() + " ms");
        ctx.sleep(alone);
        oldSide.heal();
        split[1].heal();                                       // the old side's heal restored some of its pairs
        split[1] = null;
        split[0] = NetworkSplit.isolate(control, second, cluster.nodes());
        if (crashed(first)) {
            first.restart();
            down.remove(first);
            events.accept("node " + first.id() + " back, " + split[0]);
        } else {
            events.accept("node " + first.id() + (first.failure() != null ? " fail-stopped" : " not back: "
                    + first.state()) + ", " + split[0]);
        }
        // A third leader among the others passes on what the old leader's side holds; then it loses power and the
        // isolated leader, whose last entry is newer than any the third one passed on, comes back.
        SimNode third = awaitLeader(ctx, cluster, bound, node -> node != second);
        if (third == null) {
            events.accept("no leader besides node " + second.id() + " within " + bound / 1_000_000 + " ms");
            return;
        }
        // The clients still wait on the isolated leader: the third one's first entries are the old leader's.
        ctx.sleep(Duration.ofNanos(meanPause.toNanos() / 8 + random.nextLong(Math.max(1, meanPause.toNanos() / 8))));
        if (third.state() == SimNode.State.RUNNING || third.state() == SimNode.State.PAUSED) {
            down.add(third);
            third.crash();
        }
        split[0].heal();
        split[0] = null;
        events.accept("leader node " + third.id() + " powered off; node " + second.id() + " healed");
        ctx.sleep(Duration.ofNanos(bound));
    }

    /** The running node the leader hook names once it is one that {@code eligible} accepts, or null after the bound. */
    private SimNode awaitLeader(Context ctx, SimCluster cluster, long boundNanos,
            java.util.function.Predicate<SimNode> eligible) {
        for (long waited = 0; waited < boundNanos; waited += POLL.toNanos()) {
            SimNode leading = running(cluster, leader.getAsInt());
            if (leading != null && eligible.test(leading)) {
                return leading;
            }
            ctx.sleep(POLL);
        }
        return null;
    }

    private static boolean allCrashed(List<SimNode> nodes) {
        for (SimNode node : nodes) {
            if (!crashed(node)) {
                return false;
            }
        }
        return true;
    }

    /** Node {@code id} if it is running, else null. */
    static SimNode running(SimCluster cluster, int id) {
        if (id < 1 || id > cluster.nodes().size()) {
            return null;
        }
        SimNode node = cluster.node(id);
        return node.state() == SimNode.State.RUNNING ? node : null;
    }
}
