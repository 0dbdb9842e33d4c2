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
    void replicatedReplayLinesRoundTrip() {
        Scenario.Spec spec = new Scenario.Spec(3, FaultConfig.parse("partition"), Workload.REPLICATED_5,
                InjectedBug.FIGURE_8);
        assertEquals("kv:seed=3:faults=partition:workload=replicated-5:bug=figure-8", spec.line());
        assertEquals(spec, Scenario.Spec.parse(spec.line()));
    }
}
