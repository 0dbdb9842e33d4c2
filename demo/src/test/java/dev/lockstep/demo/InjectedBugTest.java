package dev.lockstep.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.demo.kv.InjectedBug;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The proof that the simulator finds real bugs: with each deliberate bug switched on, the demo's seed sweep
 * (the same one {@code ./lockstep demo} runs) fails within 200 seeds, and the failing seed replays exactly.
 * The correct store passes the same seeds.
 */
class InjectedBugTest {
    private static final int SEEDS = 200;
    /** One simulator per core, as {@code explore} runs them: the sweep's results do not depend on it. */
    private static final int THREADS = Runtime.getRuntime().availableProcessors();

    private static Explorer.Settings settings(InjectedBug bug, int seeds, boolean stop) {
        return new Explorer.Settings(seeds, 1, "swarm", Workload.MIXED, bug, THREADS, stop);
    }

    @ParameterizedTest
    @EnumSource(value = InjectedBug.class, names = {"ACK_BEFORE_SYNC", "SKIP_TORN_TAIL_CHECK", "FORGET_DIRECTORY_SYNC"})
    // Up to 200 two-host seeds in the interleaving mode: 87 s for one bug on the loaded 2-core machine.
    @org.junit.jupiter.api.Timeout(180)
    void theSimulatorFindsTheBugWithin200Seeds(InjectedBug bug) throws Exception {
        Explorer.Summary summary = Explorer.run(settings(bug, SEEDS, true), new AtomicInteger(), result -> { });
        assertFalse(summary.failures().isEmpty(), bug + " was not found in " + SEEDS + " seeds");
        Scenario.Result found = summary.failures().getFirst();
        System.out.printf("%s found at seed %d (after %d seeds): %s%n  replay: ./lockstep replay %s%n", bug,
                found.spec().seed(), summary.seedsRun(), found.failure().lines().findFirst().orElse(""),
                Explorer.replayLine(found));
        Scenario.Result replayed = Scenario.run(Scenario.Spec.parse(Explorer.replayLine(found)), 20);
        assertEquals(found.failure(), replayed.failure(), "the replay line reruns the failure exactly");
        assertEquals(found.digest(), replayed.digest());
        assertFalse(replayed.notable().isEmpty());
    }

    @Test
    @Timeout(300) // 40 whole simulated runs: over a minute on a loaded 2-core machine, on main as well
    void theCorrectStorePassesTheFirstSeeds() throws Exception {
        Explorer.Summary summary = Explorer.run(settings(InjectedBug.NONE, 40, false), new AtomicInteger(),
                result -> { });
        assertEquals(40, summary.seedsRun());
        assertTrue(summary.failures().isEmpty(), () -> summary.failures().getFirst().spec().line() + ": "
                + summary.failures().getFirst().failure());
        assertTrue(summary.crashes() > 0 && summary.partitions() > 0 && summary.storageFailures() > 0,
                "the sweep injected every kind of fault: " + summary);
    }

    @Test
    @Timeout(120) // ten whole simulated runs, the first ones in a cold JVM: 20 s at a load of 11 on 2 cores
    void theSweepGivesTheSameRunsOnParallelThreadsAsOnOne() throws Exception {
        // Three threads for five seeds: more simulators than this machine's cores, and seeds of different lengths,
        // so threads take seeds in an order that depends on timing; the summary must not.
        Explorer.Summary here = Explorer.run(new Explorer.Settings(5, 100, "swarm", Workload.MIXED, InjectedBug.NONE,
                1, false), new AtomicInteger(), result -> { });
        Explorer.Summary there = Explorer.run(new Explorer.Settings(5, 100, "swarm", Workload.MIXED,
                InjectedBug.NONE, 3, false), new AtomicInteger(), result -> { });
        assertEquals(verdicts(here), verdicts(there));
        assertEquals(5, here.seedsRun());
        assertEquals(here.simulatedNanos(), there.simulatedNanos());
        assertEquals(here.acknowledgedWrites(), there.acknowledgedWrites());
        assertEquals(here.faultsInjected(), there.faultsInjected());
    }

    @Test
    @Timeout(120) // up to six whole simulated runs: 42 s at a load of 11 on 2 cores
    void aSweepThatStopsAtTheFirstFailureStopsAtTheSameSeedOnParallelThreads() throws Exception {
        // With ACK_BEFORE_SYNC one of seeds 4..7 fails (which one, the simulator's schedules decide): the sweep
        // stops there after the seeds before it passed, with one thread or three (which start later seeds before
        // the failing one has failed).
        Explorer.Summary here = Explorer.run(new Explorer.Settings(4, 4, "swarm", Workload.MIXED,
                InjectedBug.ACK_BEFORE_SYNC, 1, true), new AtomicInteger(), result -> { });
        Explorer.Summary there = Explorer.run(new Explorer.Settings(4, 4, "swarm", Workload.MIXED,
                InjectedBug.ACK_BEFORE_SYNC, 3, true), new AtomicInteger(), result -> { });
        java.util.List<Long> seeds = here.results().stream().map(result -> result.spec().seed()).toList();
        assertEquals(java.util.stream.LongStream.range(4, 4 + seeds.size()).boxed().toList(), seeds,
                () -> verdicts(here).toString());
        assertEquals(1, here.failures().size(), () -> verdicts(here).toString());
        assertEquals(here.failures().getFirst().spec().seed(), here.results().getLast().spec().seed());
        assertEquals(verdicts(here), verdicts(there));
    }

    /** Each seed run: its seed, its verdict and the start of its failure, its audit digest. */
    private static java.util.List<String> verdicts(Explorer.Summary summary) {
        return summary.results().stream().map(result -> result.spec().seed() + " " + (result.passed() ? "passed"
                : "FAILED " + result.failure().lines().findFirst().orElse("")) + " " + result.digest()).toList();
    }

    @Test
    void replayLinesRoundTrip() {
        Scenario.Spec spec = new Scenario.Spec(17, dev.lockstep.testing.FaultConfig.parse("crash+sync-errors"),
                Workload.WRITE_HEAVY, InjectedBug.ACK_BEFORE_SYNC);
        assertEquals(spec, Scenario.Spec.parse("./lockstep replay " + spec.line() + ":digest=0123456789abcdef"));
    }
}
