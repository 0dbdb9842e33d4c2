package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.demo.kv.InjectedBug;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each Raft mutant that only a search finds is reachable and caught: a seed the scoreboard's {@code combined}
 * strategy, or one of the nemeses it draws, found (its replay line, without the digest) fails with the property the
 * planted bug breaks, the fault point or disturbance that reached it shows in the run's trace, and the same run of
 * the unmutated Raft passes. A change to the Raft, its fault points, the nemesis or the scheduler's choices may move
 * these runs: find a new seed with {@code ./lockstep scoreboard --strategy combined}, or the first seed that reaches
 * the mutant with the same strategy parameters (faults, nemesis, fault points, priorities), and put its line here.
 */
class RaftMutantsTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "figure-8|kv:seed=51:faults=crash+torn-writes+partition:workload=replicated:bug=figure-8:nemesis=targeted"
                + ":faultpoints=1.0/0.5:priorities=3/5000|Leader Completeness|nemesis:",
        "figure-8 at five nodes|kv:seed=5:faults=torn-writes:workload=replicated-5:bug=figure-8:nemesis=placed"
                + ":faultpoints=0.25/0.01|Leader Completeness|isolated for",
        "forget-vote-on-reboot|kv:seed=79:faults=crash+torn-writes+connection-reset:workload=replicated"
                + ":bug=forget-vote-on-reboot:nemesis=swarm:faultpoints=1.0/0.5|Election Safety|nemesis:",
        "truncate-on-stale-append|kv:seed=8:faults=torn-writes+connection-reset:workload=replicated"
                + ":bug=truncate-on-stale-append:nemesis=targeted:faultpoints=1.0/0.25:priorities=2/5000"
                + "|Leader Completeness|raft.append-handled-late",
        "commit-past-match|kv:seed=4:faults=crash+partition+connection-reset:workload=replicated"
                + ":bug=commit-past-match:nemesis=targeted:faultpoints=1.0/0.25:priorities=1/5000|State Machine Safety"
                + "|raft.append-from-earlier",
        "read-without-quorum|kv:seed=26:faults=torn-writes:workload=replicated:bug=read-without-quorum"
                + ":nemesis=swarm:faultpoints=0.25/0.5|linearizable read|nemesis:",
        "recovery-rewrites-log|kv:seed=27:faults=crash+torn-writes:workload=replicated:bug=recovery-rewrites-log"
                + ":nemesis=targeted:faultpoints=0.5/0.1:priorities=2/500|Leader Completeness|nemesis:",
        "unsynced-vote by the vote strike|kv:seed=2:faults=partition:workload=replicated:bug=unsynced-vote"
                + ":nemesis=votes:faultpoints=0.25/0.01|Election Safety|crashed after granting it",
        "follower-ack-before-sync|kv:seed=27:faults=crash+connection-reset:workload=replicated"
                + ":bug=follower-ack-before-sync:nemesis=strikes:faultpoints=0.5/0.25|Leader Completeness"
                + "|armed to crash once they answered",
        "fixed-election-timeout|kv:seed=15:faults=crash+partition+connection-reset:workload=replicated"
                + ":bug=fixed-election-timeout:nemesis=targeted:faultpoints=0.25/0.5|liveness|failover 1",
    })
    @Timeout(300) // two seeds on the loaded 2-core machine, not an expectation
    void theMutantFailsItsPropertyAndTheUnmutatedRaftPassesTheSameRun(String mutant, String line, String property,
            String reachedBy) {
        Scenario.Spec spec = Scenario.Spec.parse(line);
        Scenario.Result found = Scenario.run(spec, 5_000);
        assertFalse(found.passed(), mutant + " was not found by " + line);
        assertTrue(found.failure().startsWith(property), () -> mutant + ": expected a " + property + " failure, got "
                + found.failure());
        assertTrue(found.notable().stream().anyMatch(event -> event.contains(reachedBy)), () -> mutant + ": no "
                + reachedBy + " in " + found.notable());
        Scenario.Spec unmutated = new Scenario.Spec(spec.seed(), spec.faults(), spec.workload(), InjectedBug.NONE,
                spec.nemesis(), spec.search());
        Scenario.Result passed = Scenario.run(unmutated, 0);
        assertTrue(passed.passed(), () -> "false alarm on " + unmutated.line() + ": " + passed.failure());
    }

    /** A run of the placed strikes (two cuts at once, the old leader back) replays decision for decision. */
    @Test
    @Timeout(300) // two seeds on the loaded 2-core machine, not an expectation
    void aFailureOfThePlacedStrikesReplaysExactlyFromItsLine() {
        Scenario.Result found = Scenario.run(Scenario.Spec.parse("kv:seed=5:faults=torn-writes:workload=replicated-5"
                + ":bug=figure-8:nemesis=placed:faultpoints=0.25/0.01"), 0);
        assertFalse(found.passed(), "the seed of figure-8 at five nodes fails");
        Scenario.Result replayed = Scenario.run(Scenario.Spec.parse(Explorer.replayLine(found)), 0);
        assertEquals(found.failure(), replayed.failure(), "the replay line reruns the failure");
        assertEquals(found.digest(), replayed.digest(), "the same run, decision for decision");
    }
}
