package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.demo.kv.InjectedBug;
import dev.lockstep.testing.FaultConfig;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The replicated workload: the correct Raft keeps its safety properties and recovers after the faults stop, at three
 * and five nodes; a planted bug is found and its failing seed replays exactly. The long searches (every mutant, many
 * seeds) are the scoreboard's, not the build's.
 */
class RaftScenarioTest {
    private static Explorer.Settings settings(Workload workload, InjectedBug bug, int seeds, long first) {
        return new Explorer.Settings(seeds, first, "swarm", workload, bug, 2, false);
    }

    @Test
    @Timeout(300) // a bound for the loaded 2-core machine, not an expectation
    void theCorrectRaftPassesUnderCrashesKillsPausesClockMovesAndPartitions() throws Exception {
        for (Workload workload : new Workload[] {Workload.REPLICATED, Workload.REPLICATED_5}) {
            Explorer.Summary summary = Explorer.run(settings(workload, InjectedBug.NONE, 6, 1), new AtomicInteger(),
                    result -> { });
            assertEquals(6, summary.seedsRun());
            assertTrue(summary.failures().isEmpty(), () -> summary.failures().getFirst().spec().line() + ": "
                    + summary.failures().getFirst().failure());
            assertTrue(summary.crashes() > 0 && summary.acknowledgedWrites() > 0, "the sweep crashed nodes and"
                    + " acknowledged commands: " + summary);
        }
    }

    @Test
    @Timeout(300) // a bound for the loaded 2-core machine, not an expectation
    void theCorrectRaftPassesWithEveryFaultPointEnabled() {
        java.util.Set<String> fired = new java.util.TreeSet<>();
        long acknowledged = 0;
        for (long seed = 1; seed <= 4; seed++) {
            Scenario.Spec spec = new Scenario.Spec(seed, Explorer.faultsFor("swarm", seed), Workload.REPLICATED,
                    InjectedBug.NONE, dev.lockstep.testing.NemesisStrategy.UNIFORM,
                    new dev.lockstep.testing.SearchSettings(new dev.lockstep.sim.FaultPoints(1, 0.5),
                            dev.lockstep.sim.Priorities.OFF, dev.lockstep.sim.DecisionChain.NONE));
            Scenario.Result result = Scenario.run(spec, 1_000);
            assertTrue(result.passed(), () -> spec.line() + ": " + result.failure());
            acknowledged += result.acknowledgedWrites();
            for (String line : result.notable()) {
                java.util.regex.Matcher point = java.util.regex.Pattern.compile("(raft\\.[a-z-]+) x")
                        .matcher(line);
                while (point.find()) {
                    fired.add(point.group(1));
                }
            }
        }
        assertEquals(java.util.Set.of("raft.append-cut-short", "raft.drop-peer-reply", "raft.follower-commit-late",
                "raft.leader-commit-late", "raft.election-early", "raft.contest-election",
                "raft.append-handled-late", "raft.append-from-earlier", "raft.sync-slow", "raft.client-ask-another"),
                fired,
                "every fault point of the Raft and its client fired");
        assertTrue(acknowledged > 0, "commands were acknowledged while the points fired");
        // Points firing at nine reaches in ten are faults that never stop, unless the nodes stop reaching them once
        // the harness's faults stop: this seed then had no leader within the liveness bound.
        String heavy = "kv:seed=20:faults=crash+torn-writes+partition+connection-reset:workload=replicated:bug=none"
                + ":faultpoints=1.0/0.9";
        Scenario.Result quiet = Scenario.run(Scenario.Spec.parse(heavy), 0);
        assertTrue(quiet.passed(), () -> heavy + ": " + quiet.failure());
    }

    @Test
    @Timeout(300)
    void aPlantedBugIsFoundAndItsSeedReplaysExactly() throws Exception {
        Explorer.Summary summary = Explorer.run(new Explorer.Settings(20, 1, "swarm", Workload.REPLICATED,
                InjectedBug.ACK_BEFORE_COMMIT, 1, true), new AtomicInteger(), result -> { });
        assertFalse(summary.failures().isEmpty(), "ack-before-commit was not found in 20 seeds");
        Scenario.Result found = summary.failures().getFirst();
        Scenario.Result replayed = Scenario.run(Scenario.Spec.parse(Explorer.replayLine(found)), 20);
        assertEquals(found.failure(), replayed.failure(), "the replay line reruns the failure exactly");
        assertEquals(found.digest(), replayed.digest());
        assertTrue(replayed.notable().stream().anyMatch(line -> line.contains("CHECK FAILED")), replayed.notable()
                .toString());
    }

    @Test
    void theFailoverBoundIsFourOfTheLongestElectionTimeouts() {
        java.util.List<java.net.InetSocketAddress> one = java.util.List.of(
                new java.net.InetSocketAddress("127.0.0.1", RaftScenario.PORT));
        dev.lockstep.demo.raft.RaftConfig config = dev.lockstep.demo.raft.RaftConfig.of(1, one);
        assertEquals(java.time.Duration.ofMillis(160), RaftScenario.failoverBound(config));
        assertEquals(java.time.Duration.ofMillis(200), RaftScenario.failoverBound(config.withTiming(
                config.heartbeat(), config.electionTimeoutMin(), java.time.Duration.ofMillis(50), config.rpcTimeout())));
    }

    @Test
    @Timeout(120) // a bound for the loaded 2-core machine, not an expectation
    void everyFailoverRunsAndItsCrashesAreCounted() {
        Scenario.Spec spec = new Scenario.Spec(1, FaultConfig.parse("crash"), Workload.REPLICATED, InjectedBug.NONE);
        Scenario.Result result = Scenario.run(spec, 100_000);
        assertTrue(result.passed(), () -> spec.line() + ": " + result.failure());
        for (int failover = 1; failover <= RaftScenario.FAILOVERS; failover++) {
            String started = "failover " + failover + ": leader node";
            assertTrue(result.notable().stream().anyMatch(line -> line.contains(started)),
                    () -> started + " not in " + result.notable());
        }
        // Every node start is told to the checker; all but the first three are restarts after a crash.
        long restarts = result.notable().stream().filter(line -> line.contains(" started: recovered ")).count() - 3;
        assertTrue(restarts >= RaftScenario.FAILOVERS, "the failed-over leaders were restarted: " + result.notable());
        assertEquals(restarts, result.crashes(), "the nemesis's crashes and the failovers' are counted: "
                + result.notable());
        assertEquals(result.lifetimes() - 1, result.crashes(), "every restart follows a crash");
    }

    @Test
    void replicatedReplayLinesRoundTrip() {
        Scenario.Spec spec = new Scenario.Spec(3, FaultConfig.parse("partition"), Workload.REPLICATED_5,
                InjectedBug.FIGURE_8);
        assertEquals("kv:seed=3:faults=partition:workload=replicated-5:bug=figure-8", spec.line());
        assertEquals(spec, Scenario.Spec.parse(spec.line()));
    }
}
