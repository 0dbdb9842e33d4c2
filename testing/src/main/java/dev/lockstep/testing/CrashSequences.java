package dev.lockstep.testing;

import dev.lockstep.Context;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.random.RandomGenerator;

/**
 * The single-step disturbances of {@link ClusterNemesis} that take nodes down in a sequence of crashes rather than
 * once: {@link ClusterNemesis.Disturbance#CRASH_IN_RECOVERY} and {@link ClusterNemesis.Disturbance#ELECTION} say what
 * each does and why. Each leaves what it took down in {@code down}, for the nemesis to bring back, and draws only from
 * the generator it is given, in the order the nemesis always drew. Not thread-safe: the nemesis's task calls it on the
 * simulator's one thread.
 */
final class CrashSequences {
    /** How often {@link ClusterNemesis.Disturbance#ELECTION} looks for a candidate: about one network delay. */
    private static final Duration ELECTION_POLL = Duration.ofNanos(50_000);

    private final Duration meanPause;
    private final IntSupplier election;
    private final Consumer<String> events;

    CrashSequences(Duration meanPause, IntSupplier election, Consumer<String> events) {
        this.meanPause = meanPause;
        this.election = election;
        this.events = events;
    }

    /** {@link ClusterNemesis.Disturbance#CRASH_IN_RECOVERY}: see there. */
    void crashInRecovery(Context ctx, SimCluster cluster, List<SimNode> running, SimNode target,
            Duration length, RandomGenerator random, List<SimNode> down) {
        List<SimNode> victims = majorityWith(cluster, running, target, random);
        for (SimNode victim : victims) {
            down.add(victim);
            victim.crash();
        }
        events.accept("power loss of nodes " + NetworkSplit.ids(victims) + " for " + length.toMillis()
                + " ms, then a crash at each one's first sync");
        ctx.sleep(length);
        for (SimNode victim : victims) {
            if (victim.state() == SimNode.State.DOWN) {
                victim.restart();
                victim.crashAt(SimNode.IoBoundary.SYNC_IN_FLIGHT);
            }
        }
        ctx.sleep(length);
        for (SimNode victim : victims) {
            if (victim.state() == SimNode.State.DOWN) {
                events.accept("node " + victim.id() + (victim.failure() != null ? " fail-stopped after the restart"
                        : " crashed at its first sync after the restart"));
            }
        }
    }

    /** {@link ClusterNemesis.Disturbance#ELECTION}: see there. Only with an election hook (the nemesis checks). */
    void strikeElection(Context ctx, SimCluster cluster, Duration length, RandomGenerator random,
            List<SimNode> down) {
        long waitedNanos = 0;
        SimNode candidate = null;
        while (candidate == null && waitedNanos < length.toNanos()) {
            int id = election.getAsInt();
            if (id >= 1 && id <= cluster.nodes().size() && cluster.node(id).state() == SimNode.State.RUNNING) {
                candidate = cluster.node(id);
            } else {
                ctx.sleep(ELECTION_POLL);
                waitedNanos += ELECTION_POLL.toNanos();
            }
        }
        if (candidate == null) {
            events.accept("no election within " + length.toMillis() + " ms");
            return;
        }
        List<SimNode> voters = ClusterNemesis.running(cluster);
        voters.remove(candidate);
        if (voters.isEmpty()) {
            return;
        }
        SimNode voter = voters.get(random.nextInt(voters.size()));
        Duration outage = Duration.ofNanos(1 + random.nextLong(Math.max(1, meanPause.toNanos() / 2)));
        down.add(voter);
        switch (random.nextInt(3)) {
            case 0 -> {
                voter.crashAt(SimNode.IoBoundary.SYNC_IN_FLIGHT);
                events.accept("election of node " + candidate.id() + ": node " + voter.id()
                        + " armed to crash at its next sync, down " + outage.toMillis() + " ms");
                ctx.sleep(outage);
                if (voter.state() == SimNode.State.DOWN) {
                    ctx.sleep(outage);
                }
            }
            case 1, 2 -> {
                boolean crash = random.nextBoolean();
                ctx.sleep(Duration.ofNanos(1 + random.nextLong(Math.max(1, meanPause.toNanos() / 8))));
                if (voter.state() == SimNode.State.RUNNING || voter.state() == SimNode.State.PAUSED) {
                    if (crash) {
                        voter.crash();
                    } else {
                        voter.kill();
                    }
                    events.accept("election of node " + candidate.id() + ": " + (crash ? "crash" : "kill") + " node "
                            + voter.id() + " for " + outage.toMillis() + " ms");
                    ctx.sleep(outage);
                }
            }
            default -> throw new AssertionError();
        }
    }

    /** A majority of the cluster's nodes, {@code target} first, the rest drawn from {@code running}. */
    static List<SimNode> majorityWith(SimCluster cluster, List<SimNode> running, SimNode target,
            RandomGenerator random) {
        int majority = cluster.nodes().size() / 2 + 1;
        List<SimNode> victims = new ArrayList<>(List.of(target));
        List<SimNode> rest = new ArrayList<>(running);
        rest.remove(target);
        while (victims.size() < majority && !rest.isEmpty()) {
            victims.add(rest.remove(random.nextInt(rest.size())));
        }
        return victims;
    }
}
