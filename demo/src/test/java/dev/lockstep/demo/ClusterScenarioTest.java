package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.demo.kv.InjectedBug;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The replicated workload: the correct primary-backup log keeps every acknowledged put on two of three nodes under
 * node crashes, kills, pauses, clock moves and partitions; each replication bug is found within 500 seeds, and the
 * failing seed replays exactly.
 */
class ClusterScenarioTest {
    private static final int SEARCH = 500;

    private static Explorer.Settings settings(InjectedBug bug, int seeds, boolean stop) {
        return new Explorer.Settings(seeds, 1, "swarm", Workload.REPLICATED, bug, 1, stop);
    }

    @ParameterizedTest
    @EnumSource(value = InjectedBug.class, names = {"ACK_BEFORE_REPLICATION", "BACKUP_ACK_BEFORE_SYNC"})
    @Timeout(300) // stops at the first failing seed; a bound for the loaded 2-core machine, not an expectation
    void theSimulatorFindsTheReplicationBugWithin500Seeds(InjectedBug bug) throws Exception {
        Explorer.Summary summary = Explorer.run(settings(bug, SEARCH, true), new AtomicInteger(), result -> { });
        assertFalse(summary.failures().isEmpty(), bug + " was not found in " + SEARCH + " seeds");
        Scenario.Result found = summary.failures().getFirst();
        System.out.printf("%s found at seed %d (after %d seeds): %s%n  replay: ./lockstep replay %s%n", bug,
                found.spec().seed(), summary.seedsRun(), found.failure().lines().findFirst().orElse(""),
                Explorer.replayLine(found));
        assertTrue(found.failure().contains("not on two of three"), found.failure());
        Scenario.Result replayed = Scenario.run(Scenario.Spec.parse(Explorer.replayLine(found)), 20);
        assertEquals(found.failure(), replayed.failure(), "the replay line reruns the failure exactly");
        assertEquals(found.digest(), replayed.digest());
        assertFalse(replayed.notable().isEmpty());
    }

    @Test
    @Timeout(200)
    void theCorrectReplicationKeepsEveryAcknowledgedPutOnTwoNodes() throws Exception {
        Explorer.Summary summary = Explorer.run(settings(InjectedBug.NONE, 20, false), new AtomicInteger(),
                result -> { });
        assertEquals(20, summary.seedsRun());
        assertTrue(summary.failures().isEmpty(), () -> summary.failures().getFirst().spec().line() + ": "
                + summary.failures().getFirst().failure());
        assertTrue(summary.crashes() > 0 && summary.acknowledgedWrites() > 0, "the sweep crashed nodes and"
                + " acknowledged puts: " + summary);
    }

    @Test
    void replicatedReplayLinesRoundTrip() {
        Scenario.Spec spec = new Scenario.Spec(3, dev.lockstep.testing.FaultConfig.parse("partition"),
                Workload.REPLICATED, InjectedBug.BACKUP_ACK_BEFORE_SYNC);
        assertEquals("kv:seed=3:faults=partition:workload=replicated:bug=backup-ack-before-sync", spec.line());
        assertEquals(spec, Scenario.Spec.parse(spec.line()));
    }
}
