package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.lockstep.Context;
import dev.lockstep.Task;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.platform.engine.TestExecutionResult.Status;
import org.junit.jupiter.api.Test;

/**
 * A user's own {@code @SimulationTest} method swept beyond its annotation: {@code lockstep.seeds},
 * {@code lockstep.firstSeed}, {@code lockstep.strategy} and {@code lockstep.stopAtFirstFailure} set for the run (as
 * system properties or JUnit configuration parameters) override it, with every strategy; {@code lockstep.shard}
 * cuts it into shards, {@code lockstep.report} writes its report and {@code lockstep.replay} reruns one failure.
 */
class SweepOverridesTest {

    /** Fixtures run only through {@link Launch}. */
    static class Passing {
        @SimulationTest(seeds = 3)
        void sleeps(Context ctx) {
            ctx.sleep(Duration.ofMillis(1));
        }
    }

    /** One label always true, one never. */
    static class Assertions {
        @SimulationTest(seeds = 6)
        void asserts(Context ctx, SimulationInfo info) {
            dev.lockstep.Search.sometimes(true, "always");
            dev.lockstep.Search.sometimes(info.seed() > 100, "a seed above 100");
            ctx.sleep(Duration.ofMillis(1));
        }
    }

    /** Fails on every seed divisible by 3. */
    static class FailingEveryThird {
        @SimulationTest(seeds = 3)
        void failsOnMultiplesOfThree(Context ctx, SimulationInfo info) {
            ctx.sleep(Duration.ofMillis(1));
            if (info.seed() % 3 == 0) {
                throw new AssertionError("seed " + info.seed());
            }
        }
    }

    /**
     * The planted bugs of {@link PlantedSearchBugs} as a user's test methods; random seeds find none of them in
     * these many seeds ({@link SearchStrategyTest} shows it).
     */
    static class Planted {
        @SimulationTest(seeds = 200)
        void watchdog(Context ctx) throws Exception {
            PlantedSearchBugs.WATCHDOG_RACE.run(ctx);
        }
    }

    /** {@link PlantedSearchBugs#RETRIES} as a user's test method. */
    static class Retries {
        @SimulationTest(seeds = 200)
        void retries(Context ctx) throws Exception {
            PlantedSearchBugs.RETRIES.run(ctx);
        }
    }

    /** {@link PlantedSearchBugs#DEEP_STATE} as a user's test method. */
    static class DeepState {
        @SimulationTest(seeds = 300)
        void deepState(Context ctx) throws Exception {
            PlantedSearchBugs.DEEP_STATE.run(ctx);
        }
    }

    private static Launch run(Class<?> fixture, Map<String, String> parameters) {
        return Launch.run(parameters, selectClass(fixture));
    }

    @Test
    void seedsAndFirstSeedOverrideTheAnnotation() {
        Launch launch = run(Passing.class, Map.of("lockstep.seeds", "4", "lockstep.firstSeed", "100"));
        assertEquals(List.of("seed 100", "seed 101", "seed 102", "seed 103"), launch.names());
        assertTrue(launch.failed().isEmpty(), launch.failed().toString());
    }

    @Test
    void stopAtFirstFailureSkipsTheSeedsAfterIt() {
        Launch launch = run(FailingEveryThird.class, Map.of("lockstep.seeds", "8",
                "lockstep.stopAtFirstFailure", "true"));
        List<Status> statuses = launch.finished.stream().map(Launch.Finished::status).toList();
        assertEquals(List.of(Status.SUCCESSFUL, Status.SUCCESSFUL, Status.FAILED, Status.ABORTED, Status.ABORTED,
                Status.ABORTED, Status.ABORTED, Status.ABORTED), statuses);
        Launch all = run(FailingEveryThird.class, Map.of("lockstep.seeds", "8"));
        assertEquals(2, all.failed().size(), all.names().toString());
    }

    /** The first failure of a sweep under {@code strategy}: its replay text reruns it with the same digest. */
    private static SimulationTestFailure firstFailure(Class<?> fixture, String strategy, Task<Void> bug) {
        Launch launch = run(fixture, Map.of("lockstep.strategy", strategy, "lockstep.stopAtFirstFailure", "true"));
        assertTrue(!launch.failed().isEmpty(), strategy + " found nothing in " + launch.finished.size() + " runs");
        SimulationTestFailure failure = assertInstanceOf(SimulationTestFailure.class,
                launch.failed().getFirst().failure());
        SimulationTestFailure again = assertThrows(SimulationTestFailure.class,
                () -> Simulations.replay(failure.replay(), bug));
        assertEquals(failure.digest(), again.digest(), failure.replay());
        // The line the failure prints for the test method itself reruns it the same way.
        assertTrue(failure.getMessage().contains("-Dlockstep.replay=\"" + failure.replay() + "\""),
                failure.getMessage());
        Launch rerun = run(fixture, Map.of("lockstep.replay", failure.replay()));
        assertEquals(List.of("replay of seed " + failure.seed()), rerun.names());
        SimulationTestFailure method = assertInstanceOf(SimulationTestFailure.class,
                rerun.failed().getFirst().failure());
        assertEquals(failure.digest(), method.digest(), failure.replay());
        return failure;
    }

    @Test
    void everyStrategySweepsAUsersOwnMethodAndItsFailuresReplay() {
        SimulationTestFailure pct = firstFailure(Planted.class, "pct", PlantedSearchBugs.WATCHDOG_RACE);
        assertTrue(pct.getMessage().contains("add @Seed(" + pct.seed() + ") to the test method (it runs under the"
                + " sweep's strategy: keep its -Dlockstep.strategy, if it set one)"), pct.getMessage());

        SimulationTestFailure combined = firstFailure(Planted.class, "combined", PlantedSearchBugs.WATCHDOG_RACE);
        assertTrue(combined.replay().contains(" priorities="), combined.replay());

        firstFailure(Retries.class, "faultpoints", PlantedSearchBugs.RETRIES);

        SimulationTestFailure guided = firstFailure(DeepState.class, "guided", PlantedSearchBugs.DEEP_STATE);
        assertTrue(guided.replay().contains(" chain="), guided.replay());
        assertTrue(!guided.getMessage().contains("@Seed"), guided.getMessage());
        Launch names = run(DeepState.class, Map.of("lockstep.strategy", "guided", "lockstep.seeds", "2"));
        assertEquals(List.of("guided run 1", "guided run 2"), names.names());
    }

    @Test
    void shardsSplitTheSweepAndTogetherRunEachSeedOnce() {
        List<String> all = new java.util.ArrayList<>();
        for (int shard = 0; shard < 3; shard++) {
            Launch launch = run(Passing.class, Map.of("lockstep.seeds", "10", "lockstep.firstSeed", "5",
                    "lockstep.shard", shard + "/3"));
            assertTrue(launch.failed().isEmpty(), launch.failed().toString());
            all.addAll(launch.names());
            if (shard == 1) {
                assertEquals(List.of("seed 6", "seed 9", "seed 12"), launch.names());
            }
        }
        assertEquals(10, all.size(), all.toString());
        assertEquals(10, new java.util.HashSet<>(all).size(), all.toString());
        for (long seed = 5; seed < 15; seed++) {
            assertTrue(all.contains("seed " + seed), seed + " not run: " + all);
        }
        // A guided shard is an explorer of its own, making its share of the runs.
        Launch guided = run(Passing.class, Map.of("lockstep.seeds", "5", "lockstep.strategy", "guided",
                "lockstep.shard", "1/2"));
        assertEquals(List.of("guided run 1", "guided run 2"), guided.names());
    }

    @Test
    void aReportSaysWhatRanAndGivesEachFailuresReplay(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        Launch launch = run(FailingEveryThird.class, Map.of("lockstep.seeds", "8", "lockstep.shard", "0/1",
                "lockstep.report", dir.toString()));
        assertEquals(2, launch.failed().size(), launch.names().toString());
        java.nio.file.Path file = dir.resolve(FailingEveryThird.class.getName() + "#failsOnMultiplesOfThree.txt");
        String report = java.nio.file.Files.readString(file);
        assertTrue(report.contains("runs: 8 made, 6 passed, 2 failed, 0 not run"), report);
        List<String> replays = report.lines().filter(line -> line.startsWith("  replay: "))
                .map(line -> line.substring("  replay: ".length())).toList();
        assertEquals(2, replays.size(), report);
        assertTrue(replays.get(0).startsWith("seed=3 ") && replays.get(1).startsWith("seed=6 "), report);
        // The report's replay text reruns that seed of that method alone.
        Launch rerun = run(FailingEveryThird.class, Map.of("lockstep.replay", replays.get(1)));
        assertEquals(List.of("replay of seed 6"), rerun.names());
        assertEquals(1, rerun.failed().size());

        Launch shard = run(FailingEveryThird.class, Map.of("lockstep.seeds", "8", "lockstep.shard", "1/2",
                "lockstep.stopAtFirstFailure", "true", "lockstep.report", dir.toString()));
        assertEquals(List.of("seed 2", "seed 4", "seed 6", "seed 8"), shard.names());
        String shardReport = java.nio.file.Files.readString(dir.resolve(FailingEveryThird.class.getName()
                + "#failsOnMultiplesOfThree-shard-1-of-2.txt"));
        assertTrue(shardReport.contains("runs: 3 made, 2 passed, 1 failed, 1 not run"), shardReport);
    }

    @Test
    void aSweepReportsTheSometimesLabelsNoRunMadeTrue() {
        for (String strategy : List.of("random", "guided")) {
            Launch launch = run(Assertions.class, Map.of("lockstep.strategy", strategy));
            List<String> entries = launch.reports.stream()
                    .flatMap(entry -> entry.getKeyValuePairs().entrySet().stream())
                    .filter(pair -> pair.getKey().equals("sometimes never true")).map(Map.Entry::getValue).toList();
            assertEquals(List.of("1 label evaluated in this sweep and never true: a seed above 100"), entries,
                    strategy);
        }
        Launch above = run(Assertions.class, Map.of("lockstep.firstSeed", "200"));
        assertTrue(above.reports.stream().noneMatch(entry -> entry.getKeyValuePairs()
                .containsKey("sometimes never true")), above.reports.toString());
    }

    @Test
    void badOverridesFailTheMethodNamingTheValue() {
        for (Map.Entry<String, String> bad : List.of(Map.entry("lockstep.seeds", "0"),
                Map.entry("lockstep.firstSeed", "+5"), Map.entry("lockstep.strategy", "smart"),
                Map.entry("lockstep.stopAtFirstFailure", "yes"), Map.entry("lockstep.shard", "3/3"),
                Map.entry("lockstep.shard", "1-2"), Map.entry("lockstep.shard", "4/9"),
                Map.entry("lockstep.replay", "seed=x workers=1"), Map.entry("lockstep.replay", "seed=1 colour=red"))) {
            Launch launch = run(Passing.class, Map.of(bad.getKey(), bad.getValue()));
            assertEquals(1, launch.failedContainers.size(), bad.toString());
            Throwable failure = launch.failedContainers.getFirst().failure();
            assertTrue(failure.getMessage().contains(bad.getValue()), failure.getMessage());
        }
    }
}
