package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Blob;
import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.OpenedBlob;
import dev.lockstep.Task;
import dev.lockstep.sim.SimCluster;
import dev.lockstep.sim.SimControl;
import dev.lockstep.sim.SimNode;
import dev.lockstep.sim.SimRunner;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The cluster nemesis and network splits: each disturbance does what it says, seeded and undone. */
class ClusterNemesisTest {
    private final List<String> events = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    private static void idleNodes(SimCluster cluster, int count) {
        for (int i = 0; i < count; i++) {
            cluster.start(c -> {
                c.sleep(Duration.ofDays(1));
                return null;
            });
        }
    }

    /** Pairs of distinct nodes partitioned in either direction. */
    private static Set<String> cutPairs(SimControl control, List<SimNode> nodes) {
        Set<String> cut = new TreeSet<>();
        for (SimNode a : nodes) {
            for (SimNode b : nodes) {
                if (a != b && control.isPartitioned(a.address(), b.address())) {
                    cut.add(a.id() + "-" + b.id());
                }
            }
        }
        return cut;
    }

    private static void runFor(Context ctx, Task<Void> nemesis, int millis) {
        Handle<Void> running = ctx.child("nemesis").spawn(nemesis);
        ctx.sleep(Duration.ofMillis(millis));
        running.abort();
        try {
            running.await();
        } catch (dev.lockstep.ClosedException aborted) {
            // It ran its finally block: what it took down is back.
        }
    }

    /** Every node running in its first lifetime and no pair cut: the nemesis changed nothing or undid it all. */
    private void assertUntouched(SimControl control, SimCluster cluster, boolean restartsAllowed) {
        for (SimNode node : cluster.nodes()) {
            assertEquals(SimNode.State.RUNNING, node.state(), node + " left down; events " + events);
            if (!restartsAllowed) {
                assertEquals(1, node.lifetime(), node + " was restarted; events " + events);
            }
        }
        assertEquals(Set.of(), cutPairs(control, cluster.nodes()), "no split left; events " + events);
    }

    private boolean saw(String text) {
        return events.stream().anyMatch(line -> line.contains(text));
    }

    @SimulationTest(seeds = 2, checkDeterminism = true)
    void ackThenLeaderLossWithNoLeaderStrikesNothing(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 3);
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.ACK_THEN_LEADER_LOSS),
                Duration.ofMillis(10), () -> ClusterNemesis.NO_LEADER, events::add);
        runFor(ctx, nemesis::run, 100);
        assertTrue(saw("no leader to strike"), "events " + events);
        assertUntouched(control, cluster, false);
    }

    @SimulationTest(seeds = 2, checkDeterminism = true)
    void ackThenLeaderLossWhoseAcknowledgersNeverAnswerHealsItsSplitAndBringsThemBack(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 5);      // idle nodes answer nothing: the armed crashes never fire
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.ACK_THEN_LEADER_LOSS),
                Duration.ofMillis(10), () -> 1, events::add);
        runFor(ctx, nemesis::run, 100);
        assertTrue(saw("armed to crash once they answered"), "events " + events);
        assertTrue(saw("not every acknowledger answered"), "events " + events);
        assertUntouched(control, cluster, true);
    }

    /**
     * Records each event and checks it against the nodes' lifecycles: a node the nemesis reports back was not
     * running in the same lifetime at the event before (it was down or paused in between), and a leader whose power
     * loss is reported is down.
     */
    private Consumer<String> checkedEvents(SimCluster cluster) {
        Map<Integer, String> before = new HashMap<>();
        Pattern back = Pattern.compile("nemesis: node (\\d+) back \\(lifetime (\\d+)\\)");
        Pattern leaderLost = Pattern.compile("nemesis: power loss of leader node (\\d+) .*");
        return line -> {
            events.add(line);
            Matcher backMatch = back.matcher(line);
            if (backMatch.matches() && ("RUNNING in lifetime " + backMatch.group(2)).equals(
                    before.get(Integer.parseInt(backMatch.group(1))))) {
                problems.add(line + ": the node was already up in that lifetime at the event before");
            }
            Matcher lostMatch = leaderLost.matcher(line);
            if (lostMatch.matches() && cluster.node(Integer.parseInt(lostMatch.group(1))).state()
                    != SimNode.State.DOWN) {
                problems.add(line + ": the leader is " + cluster.node(Integer.parseInt(lostMatch.group(1))).state());
            }
            for (SimNode node : cluster.nodes()) {
                before.put(node.id(), node.state() + " in lifetime " + node.lifetime());
            }
        };
    }

    /**
     * A node of a scripted protocol: it answers each request on its port with one byte, and node 1, the leader, asks
     * each other node again a millisecond after its last answer (or failure).
     */
    private static Task<Void> answeringNode(int self, int nodes) {
        return c -> {
            for (int peer = 2; self == 1 && peer <= nodes; peer++) {
                InetSocketAddress address = new InetSocketAddress(SimCluster.address(peer), 7300);
                c.child("asking").spawn(asking -> {
                    while (true) {
                        asking.sleep(Duration.ofMillis(1));
                        try {
                            ask(asking, address);
                        } catch (dev.lockstep.LockstepException downOrCut) {
                            // Asked again a millisecond later.
                        }
                    }
                });
            }
            return answer(c, self, () -> { });
        };
    }

    /**
     * Serves the scripted protocol's requests on {@code self}'s port until the node goes: reads each request's one
     * byte, runs {@code beforeAnswer}, answers with one byte.
     */
    private static Void answer(Context c, int self, Runnable beforeAnswer) {
        try (Listener listener = c.bind(new InetSocketAddress(SimCluster.address(self), 7300)).await()) {
            while (true) {
                Connection asker = listener.accept().await();
                try (asker) {
                    asker.stream().recv(1).await();
                    beforeAnswer.run();
                    asker.sink().send(new byte[] {1}).await();
                } catch (dev.lockstep.LockstepException askerGone) {
                    // The next asker is served.
                }
            }
        }
    }

    /** Sends one request of the scripted protocol to {@code address} and waits up to 5 ms for its answer. */
    private static byte[] ask(Context c, InetSocketAddress address) {
        return c.timeout(Duration.ofMillis(5), () -> {
            try (Connection connection = c.dial(address).await()) {
                connection.sink().send(new byte[] {0}).await();
                return connection.stream().recv(1).await();
            }
        });
    }

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void ackThenLeaderLossBringsBackTheAcknowledgersItselfAndLeavesOnlyTheLeaderForTheNemesis(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        for (int id = 1; id <= 3; id++) {
            cluster.start(answeringNode(id, 3));
        }
        SimNode leader = cluster.node(1);
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.ACK_THEN_LEADER_LOSS),
                Duration.ofMillis(10), () -> leader.state() == SimNode.State.RUNNING ? 1 : ClusterNemesis.NO_LEADER,
                checkedEvents(cluster));
        runFor(ctx, nemesis::run, 200);
        assertTrue(saw("power loss of leader node 1 after nodes ["), "events " + events);
        assertEquals(List.of(), problems, "events " + events);
        // After each strike only the leader is left for the nemesis to bring back: the acknowledgers were back long
        // before, as the strike's line says.
        boolean afterStrike = false;
        for (String line : events) {
            if (line.startsWith("nemesis: power loss of leader node 1 after")) {
                afterStrike = true;
            } else if (afterStrike && line.contains(" back (lifetime")) {
                assertTrue(line.startsWith("nemesis: node 1 back"), "an acknowledger back twice: " + line
                        + "; events " + events);
            } else if (!line.startsWith("nemesis: healed")) {
                afterStrike = false;
            }
        }
        assertTrue(leader.lifetime() >= 2 && cluster.node(2).lifetime() + cluster.node(3).lifetime() >= 3,
                "the leader and an acknowledger crashed and came back; events " + events);
        assertUntouched(control, cluster, true);
    }

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void ackThenLeaderLossLeavesOnlyTheLeaderDownForTheNemesisToBringBack(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        for (int id = 1; id <= 5; id++) {
            cluster.start(answeringNode(id, 5));
        }
        SimNode leader = cluster.node(1);
        PlacedStrikes strikes = new PlacedStrikes(Duration.ofMillis(10),
                () -> leader.state() == SimNode.State.RUNNING ? 1 : ClusterNemesis.NO_LEADER, null, events::add);
        List<SimNode> down = new ArrayList<>();
        NetworkSplit[] split = {null, null};
        ctx.sleep(Duration.ofMillis(5));
        strikes.ackThenLeaderLoss(ctx, control, cluster, Duration.ofMillis(30), control.random(), down, split);
        assertTrue(saw("power loss of leader node 1 after nodes ["), "events " + events);
        assertEquals(List.of(leader), down, "the acknowledgers are back: only the leader is left; events " + events);
        assertEquals(SimNode.State.DOWN, leader.state());
        int restarted = 0;
        for (SimNode node : cluster.nodes().subList(1, 5)) {
            assertEquals(SimNode.State.RUNNING, node.state(), node + "; events " + events);
            assertEquals(null, node.armed(), node + " still armed; events " + events);
            restarted += node.lifetime() - 1;
        }
        assertEquals(2, restarted, "two acknowledgers of five crashed once and came back; events " + events);
        assertEquals(null, split[0], "the strike healed its split itself");
        assertEquals(null, split[1]);
        assertEquals(Set.of(), cutPairs(control, cluster.nodes()));
        leader.restart();
    }

    @SimulationTest(seeds = 4, checkDeterminism = true)
    void anAcknowledgerThatFailStopsInsteadOfAnsweringIsNoAnswerAndIsRestartedAsAFailStop(Context ctx) {
        SimCluster cluster = SimCluster.of(ctx);
        cluster.failStop(true);
        cluster.start(answeringNode(1, 3));
        // Node 2 fail-stops at the first request of each lifetime: it never answers.
        SimNode failing = cluster.start(c -> {
            try (Listener listener = c.bind(new InetSocketAddress(SimCluster.address(2), 7300)).await()) {
                listener.accept().await().stream().recv(1).await();
                throw new IllegalStateException("EIO: fail-stop");
            }
        });
        cluster.start(answeringNode(3, 3));
        SimNode leader = cluster.node(1);
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.ACK_THEN_LEADER_LOSS),
                Duration.ofMillis(10), () -> leader.state() == SimNode.State.RUNNING ? 1 : ClusterNemesis.NO_LEADER,
                checkedEvents(cluster));
        runFor(ctx, nemesis::run, 300);
        assertEquals(List.of(), problems, "events " + events);
        assertTrue(saw("armed to crash once they answered"), "events " + events);
        assertFalse(saw("after nodes [2] answered"), "node 2 never answered: " + events);
        long failStopRestarts = events.stream().filter(line -> line.startsWith("nemesis: restart fail-stopped node 2 "))
                .count();
        assertEquals(failing.lifetime() - 1, failStopRestarts, "every restart of node 2 is a fail-stop's; events "
                + events);
        assertEquals(failStopRestarts, nemesis.restartsOfFailStopped(), "events " + events);
    }

    @SimulationTest(seeds = 2, checkDeterminism = true)
    void answeredVoteWithNoContestStrikesNothing(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 3);
        ClusterNemesis withHook = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.ANSWERED_VOTE),
                Duration.ofMillis(10), () -> ClusterNemesis.NO_LEADER, () -> ClusterNemesis.NO_LEADER, () -> null,
                events::add);
        runFor(ctx, withHook::run, 100);
        assertTrue(saw("no contested election within"), "events " + events);
        assertUntouched(control, cluster, false);
        // A contest naming a node that is not running is no contest either.
        cluster.node(3).crash();
        events.clear();
        ClusterNemesis downVoter = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.ANSWERED_VOTE),
                Duration.ofMillis(10), () -> ClusterNemesis.NO_LEADER, () -> ClusterNemesis.NO_LEADER,
                () -> new ClusterNemesis.Contest(1, 2, 3), events::add);
        runFor(ctx, downVoter::run, 100);
        assertTrue(saw("no contested election within"), "events " + events);
        assertEquals(SimNode.State.DOWN, cluster.node(3).state(), "the nemesis left the down node alone");
        cluster.node(3).restart();
        assertEquals(Set.of(), cutPairs(control, cluster.nodes()));
    }

    @SimulationTest(seeds = 2, checkDeterminism = true)
    void answeredVoteArmsTheNamedVoterAndAnsweredVotesEveryNodeButTheCandidates(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 5);      // idle nodes answer nothing: the armed crashes never fire
        assertTrue(ClusterNemesis.STRIKES.contains(ClusterNemesis.Disturbance.ANSWERED_VOTE)
                && !ClusterNemesis.STRIKES.contains(ClusterNemesis.Disturbance.ANSWERED_VOTES));
        assertTrue(ClusterNemesis.PLACED.contains(ClusterNemesis.Disturbance.ANSWERED_VOTES)
                && !ClusterNemesis.PLACED.contains(ClusterNemesis.Disturbance.ANSWERED_VOTE));
        for (ClusterNemesis.Disturbance strike : List.of(ClusterNemesis.Disturbance.ANSWERED_VOTE,
                ClusterNemesis.Disturbance.ANSWERED_VOTES)) {
            events.clear();
            ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(strike), Duration.ofMillis(10),
                    () -> ClusterNemesis.NO_LEADER, () -> ClusterNemesis.NO_LEADER,
                    () -> new ClusterNemesis.Contest(1, 2, 4), events::add);
            runFor(ctx, nemesis::run, 100);
            String armed = strike == ClusterNemesis.Disturbance.ANSWERED_VOTE ? "[4]" : "[3, 4, 5]";
            assertTrue(saw("election contested by nodes [1, 2]: nodes " + armed + " armed to crash once they"
                    + " answered"), strike + ": events " + events);
            assertTrue(saw("nodes " + armed + " answered nothing"), strike + ": events " + events);
            assertUntouched(control, cluster, false);
        }
    }

    /** The listener the vote hook was given, or null. */
    private java.util.function.Consumer<ClusterNemesis.Vote> voteListener;

    /**
     * A voter of a scripted protocol: each connection brings one request, a vote for node 1 in term 7, which the node
     * reports to the vote hook's listener before it answers it.
     */
    private Task<Void> voter(int self) {
        return c -> {
            return answer(c, self, () -> {
                if (voteListener != null) {
                    voteListener.accept(new ClusterNemesis.Vote(self, 1, 7));
                }
            });
        };
    }

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void grantedVotesCrashesTheVoterJustAfterItsGrantCutsOffTheWinnerAndBringsTheVoterBack(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        for (int id = 1; id <= 3; id++) {
            cluster.start(voter(id));
        }
        int[] leading = {ClusterNemesis.NO_LEADER};
        List<String> cutWhileStruck = new ArrayList<>();
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.GRANTED_VOTES),
                Duration.ofMillis(10), () -> leading[0], null, null, listener -> voteListener = listener,
                events::add);
        assertFalse(ClusterNemesis.SINGLE_STEP.contains(ClusterNemesis.Disturbance.GRANTED_VOTES)
                || ClusterNemesis.PLACED.contains(ClusterNemesis.Disturbance.GRANTED_VOTES)
                || ClusterNemesis.STRIKES.contains(ClusterNemesis.Disturbance.GRANTED_VOTES), "no other set draws it");
        Handle<Void> running = ctx.child("nemesis").spawn(nemesis::run);
        // Node 1, the candidate, asks node 2 for its vote every 2 ms and leads once it got one; a voter's crash after
        // its answer fails no call that already received the answer.
        for (int ask = 0; ask < 40; ask++) {
            ctx.sleep(Duration.ofMillis(2));
            try {
                ask(ctx, new InetSocketAddress(SimCluster.address(2), 7300));
                leading[0] = 1;
                events.add("test: vote received");
            } catch (dev.lockstep.LockstepException downOrCut) {
                events.add("test: " + downOrCut);
            }
            if (!cutPairs(control, cluster.nodes()).isEmpty()) {
                cutWhileStruck.add(cutPairs(control, cluster.nodes()).toString());
            }
        }
        // A strike cut short by the abort has no line yet: its voter is brought back by the nemesis's finally block.
        int beforeAbort = events.size();
        running.abort();
        try {
            running.await();
        } catch (dev.lockstep.ClosedException aborted) {
            // It ran its finally block: what it took down is back.
        }
        assertTrue(saw("vote of term 7 granted to node 1: nodes [2] of [2] crashed after granting it"),
                "events " + events);
        // The strike brought its voters back itself: the nemesis has none left to bring back after it.
        boolean afterStrike = false;
        for (String line : events.subList(0, beforeAbort)) {
            if (line.startsWith("nemesis: vote of term") || line.startsWith("nemesis: no vote granted")) {
                afterStrike = line.contains("crashed after granting it");
            } else if (afterStrike) {
                assertFalse(line.contains(" back (lifetime"), "a node back twice: " + line + "; events " + events);
            }
        }
        assertTrue(cluster.node(2).lifetime() > 1, "the voter crashed and was restarted; events " + events);
        assertEquals(1, cluster.node(3).lifetime(), "no other node was touched; events " + events);
        assertTrue(cutWhileStruck.contains("[1-2, 1-3, 2-1, 3-1]"), "the winner cut off from every node: "
                + cutWhileStruck + "; events " + events);
        assertUntouched(control, cluster, true);
    }

    @SimulationTest(seeds = 2, checkDeterminism = true)
    void grantedVotesWithoutAVoteStrikesNothing(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 3);
        ClusterNemesis noVote = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.GRANTED_VOTES),
                Duration.ofMillis(10), () -> 1, null, null, l -> { }, events::add);
        runFor(ctx, noVote::run, 100);
        assertTrue(saw("no vote granted within"), "events " + events);
        assertUntouched(control, cluster, false);
    }

    @Test
    void grantedVotesWithoutAVoteHookIsRefusedNamingVotes() {
        // Without the hook the strike never sees a vote: a run would pass without a single disturbance.
        IllegalArgumentException alone = assertThrows(IllegalArgumentException.class,
                () -> new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.GRANTED_VOTES), Duration.ofMillis(10),
                        () -> 1, null, null, null, e -> { }));
        assertTrue(alone.getMessage().startsWith("votes (GRANTED_VOTES) needs the vote hook"), alone.getMessage());
        IllegalArgumentException mixed = assertThrows(IllegalArgumentException.class,
                () -> new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.CRASH,
                        ClusterNemesis.Disturbance.GRANTED_VOTES), Duration.ofMillis(10), () -> 1, e -> { }));
        assertEquals(alone.getMessage(), mixed.getMessage());
    }

    @Test
    void theVotesStrategyWithoutAVoteHookIsRefusedNamingVotesThroughEveryOverload() {
        Duration pause = Duration.ofMillis(10);
        List<org.junit.jupiter.api.function.Executable> withoutHook = List.of(
                () -> NemesisStrategy.VOTES.nemesis(1, pause, () -> 1, e -> { }),
                () -> NemesisStrategy.VOTES.nemesis(1, pause, () -> 1, () -> 1, e -> { }),
                () -> NemesisStrategy.VOTES.nemesis(1, pause, () -> 1, () -> 1, () -> null, e -> { }),
                () -> NemesisStrategy.VOTES.nemesis(1, pause, () -> 1, () -> 1, () -> null, null, e -> { }));
        for (org.junit.jupiter.api.function.Executable call : withoutHook) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, call);
            assertTrue(refused.getMessage().startsWith("nemesis strategy votes: votes (GRANTED_VOTES) needs the vote"
                    + " hook"), refused.getMessage());
        }
        assertDoesNotThrow(() -> NemesisStrategy.VOTES.nemesis(1, pause, () -> 1, () -> 1, () -> null,
                listener -> { }, e -> { }), "with the hook it builds");
        assertEquals(EnumSet.of(ClusterNemesis.Disturbance.GRANTED_VOTES), NemesisStrategy.VOTES.clusterNemesis(1,
                pause, new NemesisHooks(() -> 1, () -> 1, () -> null, listener -> { }), e -> { }).disturbances());
        for (NemesisStrategy other : EnumSet.complementOf(EnumSet.of(NemesisStrategy.VOTES))) {
            assertDoesNotThrow(() -> other.nemesis(1, pause, () -> 1, e -> { }), other + " needs no vote hook");
        }
    }

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void anOldLeaderReturnsAfterANewerOneWasCutOffAndTheThirdLeaderLosesPower(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 5);
        SimNode old = cluster.node(1);
        int[] newer = {ClusterNemesis.NO_LEADER};
        // A scripted protocol: node 1 leads; while it is down, the lowest running node cut off from it leads; once
        // node 1 is back it leads again, as an old leader of an older term that wins again.
        java.util.function.IntSupplier leader = () -> {
            if (old.state() == SimNode.State.RUNNING) {
                return 1;
            }
            for (SimNode node : cluster.nodes()) {
                if (node != old && node.state() == SimNode.State.RUNNING
                        && control.isPartitioned(old.address(), node.address())) {
                    newer[0] = node.id();
                    return node.id();
                }
            }
            return ClusterNemesis.NO_LEADER;
        };
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.OLD_LEADER_RETURNS),
                Duration.ofMillis(10), leader, events::add);
        runFor(ctx, nemesis::run, 200);
        assertTrue(saw("leader node 1 cut off with nodes [1, "), "a bare minority of two: " + events);
        assertTrue(saw("new leader node " + newer[0] + " isolated for"), "events " + events);
        assertTrue(saw("node 1 back, nodes [" + newer[0] + "] | "), "events " + events);
        assertTrue(saw("leader node 1 powered off; node " + newer[0] + " healed"), "events " + events);
        assertTrue(old.lifetime() >= 3, "node 1 lost power as the old leader and as the third: " + events);
        assertUntouched(control, cluster, true);
    }

    @SimulationTest(seeds = 2, checkDeterminism = true)
    void anOldLeaderStrikeWithoutASecondLeaderHealsAndRestarts(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 3);
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.OLD_LEADER_RETURNS),
                Duration.ofMillis(10), () -> 1, events::add);
        runFor(ctx, nemesis::run, 200);
        assertTrue(saw("leader node 1 cut off with nodes [1] | [2, 3]"), "alone, at three nodes: " + events);
        assertTrue(saw("no leader on the majority's side"), "events " + events);
        assertUntouched(control, cluster, true);
        ClusterNemesis none = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.OLD_LEADER_RETURNS),
                Duration.ofMillis(10), () -> ClusterNemesis.NO_LEADER, events::add);
        events.clear();
        runFor(ctx, none::run, 100);
        assertTrue(saw("no leader to strike"), "events " + events);
        assertUntouched(control, cluster, true);
    }

    @SimulationTest(seeds = 3)
    void isolatingANodeCutsItFromEveryOtherBothWaysAndOneHealRestoresEveryPair(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 5);
        List<SimNode> nodes = cluster.nodes();
        NetworkSplit split = NetworkSplit.isolate(control, cluster.node(3), nodes);
        Set<String> expected = new TreeSet<>();
        for (SimNode other : nodes) {
            if (other.id() != 3) {
                expected.add("3-" + other.id());
                expected.add(other.id() + "-3");
            }
        }
        assertEquals(expected, cutPairs(control, nodes), "node 3 reaches nobody and nobody reaches it");
        assertEquals("nodes [3] | [1, 2, 4, 5]", split.toString());
        split.heal();
        assertTrue(split.isHealed());
        assertEquals(Set.of(), cutPairs(control, nodes), "after the heal everybody reaches everybody");
        assertThrows(IllegalArgumentException.class,
                () -> NetworkSplit.between(control, List.of(nodes.get(0)), List.of(nodes.get(0), nodes.get(1))));
        IllegalArgumentException alone = assertThrows(IllegalArgumentException.class,
                () -> NetworkSplit.isolate(control, nodes.get(0), List.of(nodes.get(0))));
        assertTrue(alone.getMessage().contains("only node"), alone.getMessage());
    }

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void splitsCutAMinorityFromAMajorityAndHealWhenAborted(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 5);
        Set<Integer> minoritySizes = new HashSet<>();
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.SPLIT),
                Duration.ofMillis(10), null, line -> {
                    events.add(line);
                    if (!line.startsWith("nemesis: split")) {
                        return;
                    }
                    Set<String> cut = cutPairs(control, cluster.nodes());
                    // A minority of m nodes cut from a majority of 5 - m: 2 * m * (5 - m) directed pairs.
                    int m = cut.size() == 8 ? 1 : cut.size() == 12 ? 2 : -1;
                    if (m < 0) {
                        problems.add(line + ": " + cut.size() + " cut pairs " + cut);
                    }
                    minoritySizes.add(m);
                });
        runFor(ctx, nemesis::run, 400);
        assertEquals(List.of(), problems);
        assertEquals(Set.of(1, 2), minoritySizes, "minorities of one and two nodes; events " + events);
        assertEquals(Set.of(), cutPairs(control, cluster.nodes()), "aborting healed the split");
    }

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void powerLossCrashesAMajorityAtOneInstantAndRestartsIt(Context ctx) {
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 5);
        int[] losses = {0};
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.POWER_LOSS),
                Duration.ofMillis(10), null, line -> {
                    events.add(line);
                    if (line.startsWith("nemesis: power loss")) {
                        losses[0]++;
                        long down = cluster.nodes().stream().filter(n -> n.state() == SimNode.State.DOWN).count();
                        if (down != 3) {
                            problems.add(line + ": " + down + " nodes down at that instant");
                        }
                    }
                });
        runFor(ctx, nemesis::run, 300);
        assertEquals(List.of(), problems);
        assertTrue(losses[0] >= 5, "300 ms with a 10 ms mean pause lost power " + losses[0] + " times");
        int lifetimes = 0;
        for (SimNode node : cluster.nodes()) {
            assertEquals(SimNode.State.RUNNING, node.state(), node + " left down; events " + events);
            lifetimes += node.lifetime() - 1;
        }
        assertEquals(3 * losses[0], lifetimes, "three crashes and restarts per power loss");
    }

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void powerLossOfEveryNodeCrashesThemAllAtOneInstantAndRestartsThemTogether(Context ctx) {
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 5);
        int[] losses = {0};
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.POWER_LOSS_ALL),
                Duration.ofMillis(10), null, line -> {
                    events.add(line);
                    if (line.startsWith("nemesis: power loss of every node")) {
                        losses[0]++;
                        long down = cluster.nodes().stream().filter(n -> n.state() == SimNode.State.DOWN).count();
                        if (down != 5) {
                            problems.add(line + ": " + down + " nodes down at that instant");
                        }
                    }
                });
        runFor(ctx, nemesis::run, 300);
        assertEquals(List.of(), problems);
        assertTrue(losses[0] >= 5, "300 ms with a 10 ms mean pause lost power " + losses[0] + " times");
        for (SimNode node : cluster.nodes()) {
            assertEquals(SimNode.State.RUNNING, node.state(), node + " left down; events " + events);
            assertEquals(1 + losses[0], node.lifetime(), node + ": one crash and restart per power loss");
        }
    }

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void aCrashInRecoveryComesAtTheFirstSyncAfterTheRestart(Context ctx) {
        SimCluster cluster = SimCluster.of(ctx);
        Syncing[] seen = {new Syncing(), new Syncing(), new Syncing()};
        for (Syncing node : seen) {
            cluster.start(syncingNode(node));
        }
        int[] crashedAgain = {0};
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.CRASH_IN_RECOVERY),
                Duration.ofMillis(10), null, line -> {
                    events.add(line);
                    if (line.endsWith("crashed at its first sync after the restart")) {
                        int id = Integer.parseInt(line.split(" ")[2]);
                        SimNode node = cluster.node(id);
                        // Its lifetime after the power loss never finished a sync: it came down at the first.
                        if (node.state() != SimNode.State.DOWN || seen[id - 1].synced != seen[id - 1].syncing
                                && !seen[id - 1].opening && seen[id - 1].syncing != seen[id - 1].synced + 1) {
                            problems.add(line + ": " + node);
                        }
                        crashedAgain[0]++;
                    }
                });
        runFor(ctx, nemesis::run, 300);
        assertEquals(List.of(), problems);
        assertTrue(crashedAgain[0] >= 4, "crashes at the first sync after a restart: " + crashedAgain[0]
                + "; events " + events);
        for (SimNode node : cluster.nodes()) {
            assertEquals(SimNode.State.RUNNING, node.state(), node + " left down; events " + events);
        }
    }

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void anElectionStrikeHitsAVoterWhileTheHookNamesACandidateAndNothingWithoutIt(Context ctx) {
        SimCluster cluster = SimCluster.of(ctx);
        Syncing[] seen = {new Syncing(), new Syncing(), new Syncing()};
        for (Syncing node : seen) {
            cluster.start(syncingNode(node));
        }
        IllegalArgumentException blind = assertThrows(IllegalArgumentException.class, () -> new ClusterNemesis(
                EnumSet.of(ClusterNemesis.Disturbance.ELECTION), Duration.ofMillis(10), null, null, events::add));
        assertTrue(blind.getMessage().startsWith("election (ELECTION) needs the election hook"), blind.getMessage());
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.ELECTION),
                Duration.ofMillis(10), null, () -> 2, checkedEvents(cluster));
        assertTrue(nemesis.watchesElections());
        runFor(ctx, nemesis::run, 300);
        assertEquals(List.of(), problems, "events " + events);
        int strikes = 0;
        for (String line : events) {
            if (line.startsWith("nemesis: election of node")) {
                assertTrue(line.startsWith("nemesis: election of node 2: "), line);
                assertFalse(line.contains(" node 2 armed") || line.contains(" node 2 for"), "the candidate is"
                        + " not its own voter: " + line);
                strikes++;
            }
        }
        assertTrue(strikes >= 5, "strikes: " + events);
        assertEquals(1, cluster.node(2).lifetime(), "the candidate was never hit");
        assertTrue(cluster.node(1).lifetime() + cluster.node(3).lifetime() > 2, "a voter went down: " + events);
        for (SimNode node : cluster.nodes()) {
            assertEquals(SimNode.State.RUNNING, node.state(), node + " left down; events " + events);
        }
    }

    @SimulationTest(seeds = 3)
    void aLongIsolationLastsThreeToFiveMeanPauses(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 3);
        List<java.time.Instant> cutAt = new ArrayList<>();
        List<Long> stated = new ArrayList<>();
        List<Long> lasted = new ArrayList<>();
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.LONG_ISOLATE),
                Duration.ofMillis(10), () -> 3, line -> {
                    events.add(line);
                    if (line.startsWith("nemesis: isolate nodes [3] | [1, 2] for ")) {
                        cutAt.add(control.now());
                        stated.add(Long.parseLong(line.split(" ")[8]));
                    } else if (line.startsWith("nemesis: healed")) {
                        lasted.add(Duration.between(cutAt.getLast(), control.now()).toMillis());
                    } else {
                        problems.add(line);
                    }
                });
        runFor(ctx, nemesis::run, 400);
        assertEquals(List.of(), problems, "only the leader, node 3, is isolated");
        assertTrue(stated.size() >= 4, "isolations: " + events);
        for (int i = 0; i < stated.size(); i++) {
            long millis = stated.get(i);
            assertTrue(millis >= 30 && millis <= 50, "an isolation of " + millis + " ms");
            if (i < stated.size() - 1) {    // the last one is cut short by the abort, which heals it
                assertEquals(millis, lasted.get(i), "isolation " + i + " lasted what it said; " + events);
            }
        }
        assertEquals(Set.of(), cutPairs(control, cluster.nodes()));
    }

    /** What a syncing node was doing; node tasks and the controller share the simulator's one thread. */
    private static final class Syncing {
        boolean opening = true;
        long syncing;
        long synced;
    }

    private static Task<Void> syncingNode(Syncing seen) {
        return ctx -> {
            seen.opening = true;
            OpenedBlob opened = ctx.open("log", "entries").await();
            seen.opening = false;
            seen.syncing = opened.length() / 8;
            seen.synced = seen.syncing;
            try (Blob log = opened.blob()) {
                for (long i = seen.synced; ; i++) {
                    log.writeAt(i * 8, ByteBuffer.allocate(8).putLong(i).array()).await();
                    seen.syncing = i + 1;
                    log.sync().await();
                    seen.synced = i + 1;
                    ctx.sleep(Duration.ofMillis(1));
                }
            }
        };
    }

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void aCrashAtSyncComesWhileTheNodeWaitsForItsSync(Context ctx) {
        SimCluster cluster = SimCluster.of(ctx);
        Syncing[] seen = {new Syncing(), new Syncing(), new Syncing()};
        for (Syncing node : seen) {
            cluster.start(syncingNode(node));
        }
        int[] insideASync = {0};
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.CRASH_AT_SYNC),
                Duration.ofMillis(10), null, line -> {
                    events.add(line);
                    if (line.startsWith("nemesis: crash node")) {
                        int id = Integer.parseInt(line.split(" ")[3]);
                        Syncing node = seen[id - 1];
                        if (node.opening) {
                            return; // opening a blob syncs its directories: a sync in flight, not the log's
                        }
                        if (node.syncing != node.synced + 1) {
                            problems.add(line + ": node " + id + " was not inside a sync (syncing " + node.syncing
                                    + ", synced " + node.synced + ")");
                        }
                        insideASync[0]++;
                    }
                });
        runFor(ctx, nemesis::run, 300);
        assertEquals(List.of(), problems);
        assertTrue(insideASync[0] >= 3, "crashes inside a log sync: " + insideASync[0] + "; events " + events);
    }

    @SimulationTest(seeds = 3)
    void withALeaderHookEverySingleNodeDisturbanceAimsAtTheLeader(Context ctx) {
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 5);
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.CRASH,
                ClusterNemesis.Disturbance.PAUSE, ClusterNemesis.Disturbance.ISOLATE), Duration.ofMillis(10),
                () -> 4, events::add);
        assertTrue(nemesis.targetsLeader());
        runFor(ctx, nemesis::run, 200);
        int aimed = 0;
        for (String line : events) {
            if (line.contains(" for ")) {
                assertTrue(line.contains("node 4 ") || line.contains("nodes [4] "), line);
                aimed++;
            }
        }
        assertTrue(aimed >= 5, "disturbances: " + events);
    }

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void everyDisturbanceTogetherIsUndoneWhenAborted(Context ctx) {
        SimControl control = SimRunner.control(ctx);
        SimCluster cluster = SimCluster.of(ctx);
        idleNodes(cluster, 5);
        // A contest hook that never names a contest and a vote hook that never reports a vote: the strikes that need
        // them wait in vain.
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.allOf(ClusterNemesis.Disturbance.class),
                Duration.ofMillis(5), () -> 1, () -> 2, () -> null, listener -> { }, checkedEvents(cluster));
        runFor(ctx, nemesis::run, 2_000);
        assertEquals(List.of(), problems, "events " + events);
        assertTrue(saw(" disarmed: no "), "an armed crash that never came is reported disarmed; events " + events);
        for (SimNode node : cluster.nodes()) {
            assertEquals(SimNode.State.RUNNING, node.state(), node + " left down; events " + events);
        }
        assertEquals(Set.of(), cutPairs(control, cluster.nodes()));
        for (ClusterNemesis.Disturbance disturbance : ClusterNemesis.Disturbance.values()) {
            assertTrue(nemesis.count(disturbance) > 0, disturbance + " never drawn: " + events);
        }
    }

    @SimulationTest(seeds = 2)
    void aFailStoppedNodeIsRestartedByTheNemesis(Context ctx) {
        SimCluster cluster = SimCluster.of(ctx);
        cluster.failStop(true);
        SimNode failing = cluster.start(c -> {
            c.sleep(Duration.ofMillis(2));
            throw new IllegalStateException("EIO: fail-stop");
        });
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.PAUSE),
                Duration.ofMillis(10), null, events::add);
        runFor(ctx, nemesis::run, 200);
        assertTrue(nemesis.restartsOfFailStopped() >= 3, "restarts: " + events);
        assertEquals(1 + nemesis.restartsOfFailStopped(), failing.lifetime(), "every restart a new lifetime");
        assertTrue(events.contains("nemesis: restart fail-stopped node 1 (java.lang.IllegalStateException: EIO: "
                + "fail-stop)"), events.toString());
        assertEquals(0, failing.lifetime() - 1 - nemesis.restartsOfFailStopped());
    }

    @SimulationTest(seeds = 3, checkDeterminism = true)
    void aNodeThatFailStopsWhileArmedIsRestartedAsAFailStopNotReportedCrashedAtItsBoundary(Context ctx) {
        SimCluster cluster = SimCluster.of(ctx);
        cluster.failStop(true);
        // It never syncs or answers: each lifetime ends in its fail-stop, 2 ms in, while the nemesis may hold it armed.
        SimNode failing = cluster.start(c -> {
            c.sleep(Duration.ofMillis(2));
            throw new IllegalStateException("EIO: fail-stop");
        });
        ClusterNemesis nemesis = new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.CRASH_AT_SYNC,
                ClusterNemesis.Disturbance.CRASH_AFTER_ANSWER), Duration.ofMillis(10), null, checkedEvents(cluster));
        runFor(ctx, nemesis::run, 300);
        assertEquals(List.of(), problems, "events " + events);
        assertTrue(saw("fail-stopped before its"), "events " + events);
        assertFalse(saw("crash node 1 at"), "no boundary came, so no crash of the nemesis's: " + events);
        assertFalse(saw("node 1 back"), "every restart is a fail-stop's: " + events);
        assertEquals(1 + nemesis.restartsOfFailStopped(), failing.lifetime(), "every restart counted; events "
                + events);
    }

    @Test
    void swarmDecidesFromTheSeedAloneAndCoversEveryDisturbance() {
        Set<ClusterNemesis.Disturbance> seen = EnumSet.noneOf(ClusterNemesis.Disturbance.class);
        Set<ClusterNemesis.Disturbance> missed = EnumSet.noneOf(ClusterNemesis.Disturbance.class);
        Set<Boolean> aimed = new HashSet<>();
        for (long seed = 1; seed <= 64; seed++) {
            ClusterNemesis one = ClusterNemesis.swarm(seed, Duration.ofMillis(10), () -> 1, () -> 2, e -> { });
            ClusterNemesis again = ClusterNemesis.swarm(seed, Duration.ofMillis(10), () -> 1, () -> 2, e -> { });
            assertEquals(one.disturbances(), again.disturbances(), "seed " + seed);
            assertEquals(one.targetsLeader(), again.targetsLeader(), "seed " + seed);
            assertFalse(one.disturbances().isEmpty());
            seen.addAll(one.disturbances());
            assertTrue(ClusterNemesis.SINGLE_STEP.containsAll(one.disturbances()), "no strike in a swarm: "
                    + one.disturbances());
            Set<ClusterNemesis.Disturbance> off = EnumSet.copyOf(ClusterNemesis.SINGLE_STEP);
            off.removeAll(one.disturbances());
            missed.addAll(off);
            aimed.add(one.targetsLeader());
        }
        assertEquals(ClusterNemesis.SINGLE_STEP, seen, "each single-step disturbance is on in some seed");
        assertEquals(ClusterNemesis.SINGLE_STEP, missed, "and off in some other");
        assertEquals(Set.of(true, false), aimed);
    }

    @Test
    void aSwarmDrawsElectionOnlyWithAnElectionHookAndKeepsEverySeedsOtherDraws() {
        Duration pause = Duration.ofMillis(10);
        for (long seed = 1; seed <= 200; seed++) {
            ClusterNemesis hooked = ClusterNemesis.swarm(seed, pause, () -> 1, () -> 2, e -> { });
            ClusterNemesis blind = ClusterNemesis.swarm(seed, pause, () -> 1, e -> { });
            assertEquals(hooked.watchesElections(), hooked.targetsLeader(), "seed " + seed + ": hooks used together");
            if (!hooked.watchesElections()) {
                assertFalse(hooked.disturbances().contains(ClusterNemesis.Disturbance.ELECTION), "seed " + seed
                        + " uses no election hook yet strikes elections: " + hooked.disturbances());
            }
            assertFalse(blind.disturbances().contains(ClusterNemesis.Disturbance.ELECTION), "seed " + seed);
            assertEquals(hooked.targetsLeader(), blind.targetsLeader(), "seed " + seed);
            Set<ClusterNemesis.Disturbance> hookedLessElection = EnumSet.copyOf(hooked.disturbances());
            hookedLessElection.remove(ClusterNemesis.Disturbance.ELECTION);
            if (!hookedLessElection.isEmpty()) {
                assertEquals(hookedLessElection, blind.disturbances(), "seed " + seed + ": the same draws");
            }
        }
        // What seeds draw for a protocol with every hook (the Raft): a seed aimed at the leader has its election
        // strikes; one that is not has none, and the rest of its draws as an aimed seed would have them.
        assertEquals(EnumSet.of(ClusterNemesis.Disturbance.CRASH, ClusterNemesis.Disturbance.KILL,
                ClusterNemesis.Disturbance.ISOLATE, ClusterNemesis.Disturbance.ELECTION),
                ClusterNemesis.swarm(1, pause, () -> 1, () -> 2, e -> { }).disturbances());
        assertEquals(EnumSet.of(ClusterNemesis.Disturbance.CRASH, ClusterNemesis.Disturbance.PAUSE,
                ClusterNemesis.Disturbance.ISOLATE, ClusterNemesis.Disturbance.CRASH_AT_SYNC,
                ClusterNemesis.Disturbance.POWER_LOSS_ALL, ClusterNemesis.Disturbance.LONG_ISOLATE),
                ClusterNemesis.swarm(35, pause, () -> 1, () -> 2, e -> { }).disturbances());
        assertEquals(EnumSet.of(ClusterNemesis.Disturbance.CRASH, ClusterNemesis.Disturbance.PAUSE,
                ClusterNemesis.Disturbance.SPLIT, ClusterNemesis.Disturbance.POWER_LOSS_ALL,
                ClusterNemesis.Disturbance.LONG_ISOLATE),
                ClusterNemesis.swarm(5, pause, () -> 1, () -> 2, e -> { }).disturbances(), "unaimed seed 5 drew"
                + " ELECTION too, which it leaves out");
    }

    /** A disturbance that needs a hook, and how the refusal names both. */
    private record Need(ClusterNemesis.Disturbance disturbance, String named) {
    }

    /** Every disturbance that needs a hook, in the order of the disturbances. */
    private static final List<Need> NEEDS = List.of(
            new Need(ClusterNemesis.Disturbance.ELECTION, "election (ELECTION) needs the election hook"),
            new Need(ClusterNemesis.Disturbance.ACK_THEN_LEADER_LOSS,
                    "leader (ACK_THEN_LEADER_LOSS) needs the leader hook"),
            new Need(ClusterNemesis.Disturbance.ANSWERED_VOTE, "contest (ANSWERED_VOTE) needs the contest hook"),
            new Need(ClusterNemesis.Disturbance.ANSWERED_VOTES, "contest (ANSWERED_VOTES) needs the contest hook"),
            new Need(ClusterNemesis.Disturbance.OLD_LEADER_RETURNS,
                    "leader (OLD_LEADER_RETURNS) needs the leader hook"),
            new Need(ClusterNemesis.Disturbance.GRANTED_VOTES, "votes (GRANTED_VOTES) needs the vote hook"));

    @Test
    void aDisturbanceWithoutTheHookItNeedsIsRefusedThroughEveryConstructorNamingBoth() {
        Duration pause = Duration.ofMillis(10);
        java.util.function.IntSupplier leader = () -> 1;
        java.util.function.IntSupplier election = () -> 2;
        java.util.function.Supplier<ClusterNemesis.Contest> contest = () -> null;
        ClusterNemesis.VoteHook votes = listener -> { };
        for (Need need : NEEDS) {
            ClusterNemesis.Disturbance disturbance = need.disturbance();
            String named = need.named();
            // With a single-step disturbance beside it, still refused: it would be drawn and do nothing.
            Set<ClusterNemesis.Disturbance> set = EnumSet.of(disturbance, ClusterNemesis.Disturbance.CRASH);
            boolean needsLeader = named.startsWith("leader");
            boolean needsElection = named.startsWith("election");
            boolean needsContest = named.startsWith("contest");
            boolean needsVotes = named.startsWith("votes");
            List<org.junit.jupiter.api.function.Executable> calls = new ArrayList<>(List.of(
                    () -> new ClusterNemesis(set, pause, needsLeader ? null : leader, needsElection ? null : election,
                            needsContest ? null : contest, needsVotes ? null : votes, e -> { })));
            if (!needsVotes) {
                calls.add(() -> new ClusterNemesis(set, pause, needsLeader ? null : leader,
                        needsElection ? null : election, needsContest ? null : contest, e -> { }));
            }
            if (!needsVotes && !needsContest) {
                calls.add(() -> new ClusterNemesis(set, pause, needsLeader ? null : leader,
                        needsElection ? null : election, e -> { }));
            }
            if (!needsVotes && !needsContest && !needsElection) {
                calls.add(() -> new ClusterNemesis(set, pause, null, e -> { }));
            }
            for (org.junit.jupiter.api.function.Executable call : calls) {
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, call, named);
                assertTrue(refused.getMessage().startsWith(named), refused.getMessage());
                assertTrue(refused.getMessage().contains("disturbs nothing"), refused.getMessage());
            }
            // With the hook it builds.
            assertEquals(set, new ClusterNemesis(set, pause, leader, election, contest, votes, e -> { })
                    .disturbances());
        }
        // Every hook missing at once: each is named, in the order of the disturbances.
        IllegalArgumentException all = assertThrows(IllegalArgumentException.class, () -> new ClusterNemesis(
                EnumSet.allOf(ClusterNemesis.Disturbance.class), pause, null, null, null, null, e -> { }));
        List<String> expected = new ArrayList<>();
        for (Need need : NEEDS) {
            expected.add(need.named());
        }
        List<String> named = new ArrayList<>();
        for (String part : all.getMessage().split("; ")) {
            named.add(part.substring(0, part.indexOf(", which is null")));
        }
        assertEquals(expected, named, all.getMessage());
        // The vote strikes do without the leader hook: they crash and restart their voters, cutting no one off.
        new ClusterNemesis(EnumSet.of(ClusterNemesis.Disturbance.ANSWERED_VOTES,
                ClusterNemesis.Disturbance.GRANTED_VOTES), pause, null, null, contest, votes, e -> { });
    }

    @Test
    void aStrategyKeepsTheDisturbancesWhoseHooksItIsGivenAndIsRefusedWhenNoneOfItsOwnIsLeft() {
        Duration pause = Duration.ofMillis(10);
        NemesisHooks every = new NemesisHooks(() -> 1, () -> 2, () -> null, listener -> { });
        NemesisHooks none = new NemesisHooks(null, null, null, null);
        EnumSet<ClusterNemesis.Disturbance> strikes = EnumSet.copyOf(ClusterNemesis.SINGLE_STEP);
        strikes.addAll(ClusterNemesis.STRIKES);
        // Given every hook (the Raft), each strategy has its whole set.
        assertEquals(ClusterNemesis.SINGLE_STEP, NemesisStrategy.TARGETED.clusterNemesis(1, pause, every, e -> { })
                .disturbances());
        assertEquals(strikes, NemesisStrategy.STRIKES.clusterNemesis(1, pause, every, e -> { }).disturbances());
        assertEquals(ClusterNemesis.PLACED, NemesisStrategy.PLACED.clusterNemesis(1, pause, every, e -> { })
                .disturbances());
        assertEquals(EnumSet.of(ClusterNemesis.Disturbance.GRANTED_VOTES), NemesisStrategy.VOTES.clusterNemesis(1,
                pause, every, e -> { }).disturbances());
        // Without the election hook, targeted strikes no election; it still aims at the leader.
        ClusterNemesis targeted = NemesisStrategy.TARGETED.clusterNemesis(1, pause,
                new NemesisHooks(() -> 1, null, null, null), e -> { });
        EnumSet<ClusterNemesis.Disturbance> blind = EnumSet.copyOf(ClusterNemesis.SINGLE_STEP);
        blind.remove(ClusterNemesis.Disturbance.ELECTION);
        assertEquals(blind, targeted.disturbances());
        assertTrue(targeted.targetsLeader());
        assertEquals(blind, NemesisStrategy.TARGETED.clusterNemesis(1, pause, none, e -> { }).disturbances());
        // With a leader hook alone, the strikes that need no contest.
        EnumSet<ClusterNemesis.Disturbance> leaderOnly = EnumSet.copyOf(blind);
        leaderOnly.add(ClusterNemesis.Disturbance.ACK_THEN_LEADER_LOSS);
        NemesisHooks leader = new NemesisHooks(() -> 1, null, null, null);
        assertEquals(leaderOnly, NemesisStrategy.STRIKES.clusterNemesis(1, pause, leader, e -> { }).disturbances());
        assertEquals(EnumSet.of(ClusterNemesis.Disturbance.ACK_THEN_LEADER_LOSS,
                ClusterNemesis.Disturbance.OLD_LEADER_RETURNS), NemesisStrategy.PLACED.clusterNemesis(1, pause,
                leader, e -> { }).disturbances());
        // With none of its own left, refused, naming the strategy and every hook it misses.
        IllegalArgumentException strikesRefused = assertThrows(IllegalArgumentException.class,
                () -> NemesisStrategy.STRIKES.nemesis(1, pause, null, e -> { }));
        assertTrue(strikesRefused.getMessage().startsWith("nemesis strategy strikes: leader (ACK_THEN_LEADER_LOSS)"
                + " needs the leader hook"), strikesRefused.getMessage());
        assertTrue(strikesRefused.getMessage().contains("; contest (ANSWERED_VOTE) needs the contest hook"),
                strikesRefused.getMessage());
        IllegalArgumentException placedRefused = assertThrows(IllegalArgumentException.class,
                () -> NemesisStrategy.PLACED.nemesis(1, pause, null, () -> 2, e -> { }));
        assertTrue(placedRefused.getMessage().startsWith("nemesis strategy placed: leader (ACK_THEN_LEADER_LOSS)"),
                placedRefused.getMessage());
        assertTrue(placedRefused.getMessage().contains("; contest (ANSWERED_VOTES) needs the contest hook")
                && placedRefused.getMessage().contains("; leader (OLD_LEADER_RETURNS)"), placedRefused.getMessage());
        // The strategies a protocol without hooks may use all build.
        for (NemesisStrategy strategy : List.of(NemesisStrategy.UNIFORM, NemesisStrategy.TARGETED,
                NemesisStrategy.SWARM)) {
            assertDoesNotThrow(() -> strategy.nemesis(1, pause, null, e -> { }), strategy.cliName());
        }
        Set<ClusterNemesis.Disturbance> swarm = NemesisStrategy.SWARM.clusterNemesis(1, pause, none, e -> { })
                .disturbances();
        assertFalse(swarm.isEmpty());
        assertFalse(swarm.contains(ClusterNemesis.Disturbance.ELECTION), swarm.toString());
    }

    @Test
    void strategiesAreNamedAndBadArgumentsAreRefusedNamingThem() {
        for (NemesisStrategy strategy : NemesisStrategy.values()) {
            assertEquals(strategy, NemesisStrategy.parse(strategy.cliName().toUpperCase(java.util.Locale.ROOT)));
        }
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> NemesisStrategy.parse("leader"));
        assertEquals("unknown nemesis strategy 'leader'; known: uniform, targeted, swarm, strikes, placed, votes",
                unknown.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> new ClusterNemesis(Set.of(), Duration.ofMillis(1), null, e -> { }));
        assertEquals("a cluster nemesis needs at least one disturbance", none.getMessage());
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> new ClusterNemesis(Set.of(ClusterNemesis.Disturbance.SPLIT), Duration.ofMillis(-1), null,
                        e -> { }));
        assertEquals("meanPause must be positive, was PT-0.001S", zero.getMessage());
    }
}
