package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectUniqueId;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * A {@code @SimulationTest} sweep on several threads, as a user meets it: every seed's verdict, failure and digest
 * those of a sweep run one seed at a time; the runs really at once, each on a thread and an instance of its own;
 * classes that cannot share nothing run one at a time or are refused; no thread left behind. Each test has the
 * build's default timeout (the Surefire configuration's {@code junit.jupiter.execution.timeout.default}).
 */
class SweepTest {
    /** A sweep one seed at a time, and one on two threads, whatever this machine's processor count. */
    private static final Map<String, String> ONE_THREAD = Map.of(SimulationExtension.THREADS, "1");
    private static final Map<String, String> TWO_THREADS = Map.of(SimulationExtension.THREADS, "2");

    @BeforeEach
    void clear() {
        SweepFixtures.reset();
    }

    @AfterEach
    void noSweepThreadIsLeftBehind() {
        // Every launch above has returned, so every sweep's pool has been closed: its threads have ended.
        assertEquals(Set.of(), sweepThreads());
    }

    private static Set<String> sweepThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith("lockstep-sweep-")).collect(Collectors.toSet());
    }

    /** Per seed: its name, status and failure message (which carries the replay line and the digest). */
    private static List<String> verdicts(Launch launch) {
        return launch.finished.stream().map(f -> f.name() + " " + f.status()
                + (f.failure() == null ? "" : ": " + f.failure().getMessage())).toList();
    }

    @Test
    void onTwoThreadsEverySeedHasTheVerdictAndDigestOfTheSweepOneSeedAtATime() {
        Launch alone = Launch.run(ONE_THREAD, selectClass(SweepFixtures.MixedVerdictsFixture.class));
        Map<Long, String> digestsAlone = Map.copyOf(SweepFixtures.digests);
        SweepFixtures.digests.clear();
        Launch together = Launch.run(TWO_THREADS, selectClass(SweepFixtures.MixedVerdictsFixture.class));
        assertEquals(12, alone.finished.size());
        assertEquals(4, alone.failed().size(), () -> verdicts(alone).toString());
        assertEquals(verdicts(alone), verdicts(together));
        // Passing seeds too: each run's digest at the end of its workload, read by the method itself.
        assertEquals(12, digestsAlone.size());
        assertEquals(digestsAlone, SweepFixtures.digests);
    }

    @Test
    void onTwoThreadsEverySeedEndsWithTheDigestOfTheSweepOneSeedAtATime() {
        Launch alone = Launch.run(ONE_THREAD, selectClass(SweepFixtures.FailsAtItsEndFixture.class));
        Launch together = Launch.run(TWO_THREADS, selectClass(SweepFixtures.FailsAtItsEndFixture.class));
        List<String> digests = alone.failed().stream()
                .map(f -> assertInstanceOf(SimulationTestFailure.class, f.failure()).digest()).toList();
        assertEquals(12, digests.size());
        assertTrue(digests.stream().allMatch(d -> d != null && d.length() == 64), digests::toString);
        assertEquals(12, Set.copyOf(digests).size(), "each seed's run is its own: " + digests);
        assertEquals(digests, together.failed().stream()
                .map(f -> ((SimulationTestFailure) f.failure()).digest()).toList());
        assertEquals(verdicts(alone), verdicts(together));
    }

    @Test
    void runsGoAtOnceEachOnAThreadAndAnInstanceOfItsOwn() {
        Launch launch = Launch.run(SweepFixtures.TwoAtOnceFixture.class);
        // Each run's @BeforeEach waited until two runs were set up at once: a sweep one seed at a time fails here.
        assertTrue(launch.failed().isEmpty(), () -> verdicts(launch).toString());
        assertEquals(List.of("seed 1", "seed 2", "seed 3", "seed 4", "seed 5", "seed 6"), launch.names());
        assertEquals(2, SweepFixtures.setUpThreads.size(), SweepFixtures.setUpThreads::toString);
        assertTrue(SweepFixtures.setUpThreads.stream().allMatch(n -> n.startsWith("lockstep-sweep-runs-")),
                "the runs went on the sweep's threads, not JUnit's: " + SweepFixtures.setUpThreads);
        // One set-up and one tear-down per seed, on the instance it ran on; JUnit's unused instances get neither.
        assertEquals(6, SweepFixtures.setUps.get());
        assertEquals(6, SweepFixtures.tearDowns.get());
    }

    @Test
    void anOverriddenSetUpRunsOncePerSeedAsTheOverride() {
        Launch launch = Launch.run(SweepFixtures.OverridingFixture.class);
        assertTrue(launch.failed().isEmpty(), () -> verdicts(launch).toString());
        assertEquals(4, SweepFixtures.setUps.get());
    }

    @Test
    void aFailingSeedAmongPassingOnesFailsAsTheSameSeedWithTheSameReplayLine() {
        Fixtures.reset();
        Launch alone = Launch.run(ONE_THREAD, selectClass(Fixtures.FailingFixture.class));
        Launch together = Launch.run(TWO_THREADS, selectClass(Fixtures.FailingFixture.class));
        assertEquals(List.of("seed 1", "seed 2", "seed 3", "seed 4", "seed 5"), together.names());
        assertEquals(1, together.failed().size(), () -> verdicts(together).toString());
        Launch.Finished failed = together.failed().getFirst();
        assertEquals("seed 3", failed.name());
        SimulationTestFailure failure = assertInstanceOf(SimulationTestFailure.class, failed.failure());
        assertEquals(3, failure.seed());
        SimulationTestFailure sequential = (SimulationTestFailure) alone.failed().getFirst().failure();
        assertEquals(sequential.replay(), failure.replay());
        assertEquals(sequential.getMessage(), failure.getMessage());
    }

    @Test
    void checkDeterminismRunsBothRunsOfASeedOnTheSweepAndStillCatchesADifference() {
        Fixtures.reset();
        Launch model = Launch.run(TWO_THREADS, selectClass(Fixtures.ModelInFieldFixture.class));
        assertTrue(model.failed().isEmpty(), () -> verdicts(model).toString());
        assertEquals(18, Fixtures.seen.size(), "3 seeds x 3 lifetimes x 2 runs: " + Fixtures.seen);

        Launch wallClock = Launch.run(TWO_THREADS, selectClass(Fixtures.NondeterministicFixture.class));
        assertEquals(1, wallClock.failed().size());
        String message = wallClock.failed().getFirst().failure().getMessage();
        assertTrue(message.contains("two runs of seed 1 differ"), message);
    }

    @Test
    void theRuntimeUringRunComesAfterTheSweepsSeeds() {
        Fixtures.reset();
        Launch launch = Launch.run(TWO_THREADS, selectClass(Fixtures.UringFixture.class));
        assertEquals(List.of("seed 1", "seed 2", "runtime-uring"), launch.names());
        assertTrue(launch.failed().isEmpty(), () -> verdicts(launch).toString());
        assertEquals("uring seed 1", Fixtures.seen.getLast(), Fixtures.seen::toString);
    }

    @Test
    void aNegativeThreadsValueIsRefusedNamingIt() {
        Launch launch = Launch.run(SweepFixtures.NegativeThreadsFixture.class);
        assertEquals(List.of(), launch.finished);
        Throwable refusal = launch.failedContainers.getFirst().failure();
        assertInstanceOf(IllegalArgumentException.class, refusal);
        assertTrue(refusal.getMessage().contains("@SimulationTest(threads = -2)"), refusal.getMessage());

        // The configuration parameter stands in for threads = 0, the default.
        Launch badParameter = Launch.run(Map.of(SimulationExtension.THREADS, "many"),
                selectClass(SweepFixtures.MixedVerdictsFixture.class));
        String message = badParameter.failedContainers.getFirst().failure().getMessage();
        assertTrue(message.contains("lockstep.simulationtest.threads = many"), message);
    }

    @Test
    void aPerClassInstanceRunsItsSeedsOneAtATimeOnJunitsThreadAndSaysWhy() {
        Launch launch = Launch.run(TWO_THREADS, selectClass(SweepFixtures.PerClassFixture.class));
        assertTrue(launch.failed().isEmpty(), () -> verdicts(launch).toString());
        assertEquals(4, launch.finished.size());
        assertEquals(Set.of(Thread.currentThread().getName()), SweepFixtures.setUpThreads);
        String why = launch.reports.stream().flatMap(r -> r.getKeyValuePairs().values().stream())
                .filter(v -> v.contains("one at a time")).findFirst().orElse(null);
        assertNotNull(why, launch.reports::toString);
        assertTrue(why.contains("PER_CLASS"), why);
    }

    @Test
    void askingForThreadsOnAClassWhoseRunsWouldShareStateIsRefusedNamingWhat() {
        Throwable perClass = Launch.run(SweepFixtures.PerClassOnTwoThreadsFixture.class).failedContainers.getFirst()
                .failure();
        assertInstanceOf(ExtensionConfigurationException.class, perClass);
        assertTrue(perClass.getMessage().contains("@SimulationTest(threads = 2)"), perClass.getMessage());
        assertTrue(perClass.getMessage().contains("PER_CLASS"), perClass.getMessage());

        Throwable staticField = Launch.run(SweepFixtures.StaticFieldOnTwoThreadsFixture.class).failedContainers
                .getFirst().failure();
        assertInstanceOf(ExtensionConfigurationException.class, staticField);
        assertTrue(staticField.getMessage().contains("StaticFieldOnTwoThreadsFixture.runs is a static field"),
                staticField.getMessage());
    }

    @Test
    void anInvocationsTimeoutAbortsItsSeedsRunOnTheSweepsThread() {
        Launch launch = Launch.run(SweepFixtures.EndlessFixture.class);
        assertEquals(List.of("seed 1", "seed 2", "seed 3"), launch.names());
        for (Launch.Finished seed : launch.failed()) {
            assertInstanceOf(java.util.concurrent.TimeoutException.class, seed.failure(), seed::toString);
        }
        assertEquals(3, launch.failed().size());
        // The runs were aborted: the @AfterEach of this test checks that no sweep thread is still running one.
    }

    @Test
    void invocationsJunitWasAskedForAloneRunAndNothingIsLeftRunning() {
        // As an IDE reruns two failed seeds: only their invocations, selected by unique id.
        TestPlan plan = LauncherFactory.create().discover(LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(SweepFixtures.SelectedFixture.class)).build());
        TestIdentifier template = plan.getChildren(plan.getRoots().iterator().next()).stream()
                .flatMap(c -> plan.getChildren(c).stream()).findFirst().orElseThrow();
        UniqueId method = template.getUniqueIdObject();
        Launch launch = Launch.run(Map.of(),
                selectUniqueId(method.append("test-template-invocation", "#1")),
                selectUniqueId(method.append("test-template-invocation", "#5")));
        assertEquals(List.of("seed 1", "seed 5"), launch.names());
        assertTrue(launch.finished.stream().allMatch(f -> f.status() == TestExecutionResult.Status.SUCCESSFUL),
                () -> verdicts(launch).toString());
        // The seeds handed out ahead of invocation #1 that JUnit then skipped were stopped when the sweep closed:
        // the @AfterEach of this test checks that none of its threads is alive.
    }
}
