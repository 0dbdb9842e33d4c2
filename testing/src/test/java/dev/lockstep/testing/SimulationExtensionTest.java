package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The extension as a user meets it: one invocation per seed, failures that name the seed, pinning, crashes. */
class SimulationExtensionTest {

    @BeforeEach
    void clear() {
        Fixtures.reset();
    }

    @Test
    void runsTheMethodOncePerSeedInsideTheSimulator() {
        Launch launch = Launch.run(Fixtures.PassingFixture.class);
        assertEquals(List.of("seed 10", "seed 11", "seed 12", "seed 13", "seed 14"), launch.names());
        assertTrue(launch.failed().isEmpty(), () -> launch.failed().toString());
        // The seeds' runs may go at once on several threads, in any order; JUnit reports them in seed order.
        assertEquals(List.of("seed 10 simulated=true", "seed 11 simulated=true", "seed 12 simulated=true",
                "seed 13 simulated=true", "seed 14 simulated=true"), Fixtures.seen.stream().sorted().toList());
    }

    @Test
    void aFailingSeedFailsWithTheSeedAndTheReplayLine() {
        Launch launch = Launch.run(Fixtures.FailingFixture.class);
        assertEquals(5, launch.finished.size());
        assertEquals(1, launch.failed().size(), () -> launch.failed().toString());
        Launch.Finished failed = launch.failed().getFirst();
        assertEquals("seed 3", failed.name());
        SimulationTestFailure failure = assertInstanceOf(SimulationTestFailure.class, failed.failure());
        assertEquals(3, failure.seed());
        String message = failure.getMessage();
        assertTrue(message.contains("simulation failed with seed 3"), message);
        assertTrue(message.contains("the value was wrong"), message);
        assertTrue(message.contains("add @Seed(3) to the test method"), message);
        assertTrue(message.contains("replay: Simulations.replay(\"seed=3 workers=1 faults=none crashes=0 "), message);
    }

    @Test
    void aSeedThatLeaksFailsNamingTheLeakUnlessLeakCheckingIsOff() {
        Launch checked = Launch.run(Fixtures.LeakingFixture.class);
        assertEquals(2, checked.failed().size(), () -> checked.finished.toString());
        String message = checked.failed().getFirst().failure().getMessage();
        assertTrue(message.contains("resource leak"), message);
        assertTrue(message.contains("blob 'p/forgotten'"), "names what leaked: " + message);

        Launch unchecked = Launch.run(Fixtures.LeakingUncheckedFixture.class);
        assertTrue(unchecked.failed().isEmpty(), () -> unchecked.failed().toString());
        assertEquals(List.of("leaked", "leaked"), Fixtures.seen);
    }

    @Test
    void theReplayLineCarriesLeakCheckingWhenItIsOff() {
        Simulations.Plan plan = Simulations.Plan.of(FaultConfig.parse("none")).withLeakChecks(false);
        String replay = plan.replayText(4);
        assertTrue(replay.endsWith(" failOnLeaks=false"), replay);
        // Replayed with leak checking off, the leaking body passes; with the default it fails.
        Simulations.replay(replay, Fixtures::leaksABlob);
        SimulationTestFailure failure = org.junit.jupiter.api.Assertions.assertThrows(SimulationTestFailure.class,
                () -> Simulations.replay(Simulations.Plan.of(FaultConfig.parse("none")).replayText(4),
                        Fixtures::leaksABlob));
        assertTrue(failure.getMessage().contains("resource leak"), failure.getMessage());
    }

    @Test
    void seedPinsOneSeed() {
        Launch launch = Launch.run(Fixtures.PinnedFixture.class);
        assertEquals(List.of("seed 42"), launch.names());
        assertEquals(List.of("seed 42"), Fixtures.seen);
    }

    @Test
    void crashesRunTheMethodOncePerLifetimeOnTheDiskTheCrashLeft() {
        Launch launch = Launch.run(Fixtures.CrashFixture.class);
        assertTrue(launch.failed().isEmpty(), () -> launch.failed().toString());
        assertEquals(9, Fixtures.seen.size(), Fixtures.seen::toString);
        // A seed's lifetimes run in order; different seeds' runs may interleave.
        assertEquals(List.of("seed 1 lifetime 0 restarts 0", "seed 1 lifetime 1 restarts 1",
                "seed 1 lifetime 2 restarts 2"), Fixtures.seen.stream().filter(s -> s.startsWith("seed 1 ")).toList());
    }

    @Test
    void uringRunsOnceMoreOnTheRealRuntime() {
        Launch launch = Launch.run(Fixtures.UringFixture.class);
        assertEquals(List.of("seed 1", "seed 2", "runtime-uring"), launch.names());
        assertTrue(launch.failed().isEmpty(), () -> launch.failed().toString());
        // The simulated seeds may run in either order; the runtime-uring run comes after both.
        assertEquals(List.of("sim seed 1", "sim seed 2"), Fixtures.seen.subList(0, 2).stream().sorted().toList());
        assertEquals("uring seed 1", Fixtures.seen.get(2));
    }

    @Test
    void checkDeterminismCatchesATestThatReadsTheWallClock() {
        Launch launch = Launch.run(Fixtures.NondeterministicFixture.class);
        assertEquals(1, launch.failed().size());
        String message = launch.failed().getFirst().failure().getMessage();
        assertTrue(message.contains("two runs of seed 1 differ"), message);
    }

    @Test
    void uringWithoutRuntimeUringOnTheClassPathNamesTheArtifactToAdd() throws Exception {
        // The platform class loader sees the JDK only: no runtime-uring, as in a user's build without it.
        java.lang.reflect.Method method = Fixtures.UringFixture.class.getDeclaredMethod("everywhere",
                dev.lockstep.Context.class, SimulationInfo.class);
        IllegalStateException missing = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> UringRun.requireOnClassPath(method, ClassLoader.getPlatformClassLoader()));
        assertTrue(missing.getMessage().contains("add dev.lockstep:lockstep-runtime-uring"), missing.getMessage());
        assertTrue(missing.getMessage().contains("UringFixture.everywhere"), missing.getMessage());
        UringRun.requireOnClassPath(method, SimulationExtension.class.getClassLoader()); // present here: no error
    }

    @Test
    void checkDeterminismRerunsEachSeedOnAFreshInstance() {
        // Regression: the rerun used the first run's instance, so a model kept in a field started full and every
        // seed failed with a false difference ("lost bytes").
        Launch launch = Launch.run(Fixtures.ModelInFieldFixture.class);
        assertTrue(launch.failed().isEmpty(), () -> launch.failed().toString());
        assertEquals(3, launch.finished.size());
        assertEquals(18, Fixtures.seen.size(), "3 seeds x 3 lifetimes x 2 runs: " + Fixtures.seen);
    }

    @Test
    void aCrashTestFailureReplaysFromItsPrintedLineWithTheSameDigest() {
        // Regression: the printed line was the simulator's configuration, without the crash times and policies
        // (drawn by a separate crasher), so a failure of a test with crashes = n did not come back from it.
        Launch launch = Launch.run(Fixtures.CrashingFailureFixture.class);
        assertTrue(!launch.failed().isEmpty(), () -> launch.finished.toString());
        SimulationTestFailure failure = assertInstanceOf(SimulationTestFailure.class,
                launch.failed().getFirst().failure());
        String message = failure.getMessage();
        assertTrue(message.contains("lost bytes"), message);
        java.util.regex.Matcher printed = java.util.regex.Pattern
                .compile("replay: Simulations\\.replay\\(\"([^\"]*)\", task\\) ends with audit digest ([0-9a-f]+)")
                .matcher(message);
        assertTrue(printed.find(), message);
        assertTrue(printed.group(1).contains("crashes=3"), message);
        assertEquals(failure.digest(), printed.group(2));

        java.util.List<Integer> model = new java.util.ArrayList<>();
        SimulationTestFailure replayed = org.junit.jupiter.api.Assertions.assertThrows(SimulationTestFailure.class,
                () -> Simulations.replay(printed.group(1),
                        ctx -> Fixtures.CrashingFailureFixture.unsyncedAppends(ctx, model)));
        assertEquals(failure.digest(), replayed.digest(), "the replay fails at the same point of the same run");
        assertEquals(message.substring(0, message.indexOf(':')), replayed.getMessage().substring(0,
                replayed.getMessage().indexOf(':')), "the same seed and lifetime");
        assertTrue(!replayed.getMessage().contains("@Seed"), "outside @SimulationTest, @Seed cannot help: "
                + replayed.getMessage());
    }

    /**
     * Every replay line a failing seed prints — its own, and the one in its cause from the simulator — reruns it
     * exactly: the same digest and the same failure. Regression: the cause's line was {@code SimRunner.of(...)},
     * which ran the task without the crash policy the harness draws first, and passed.
     */
    @Test
    void everyReplayLineAFailurePrintsReplaysItExactly() {
        // The task's own exception, with the simulator's replay note; and a leak, a SimulationFailure with its line.
        assertEveryReplayLineReplays(Launch.run(Fixtures.FailingFixture.class), 2, () -> ctx -> {
            ctx.sleep(java.time.Duration.ofMillis(5));
            assertTrue(false, "the value was wrong");
            return null;
        });
        assertEveryReplayLineReplays(Launch.run(Fixtures.LeakingFixture.class), 2, () -> Fixtures::leaksABlob);
        // A failure in a lifetime that ended in a crash: the harness's line alone.
        assertEveryReplayLineReplays(Launch.run(Fixtures.CrashingFailureFixture.class), 1, () -> {
            java.util.List<Integer> model = new java.util.ArrayList<>(); // one per replay, kept across its lifetimes
            return ctx -> Fixtures.CrashingFailureFixture.unsyncedAppends(ctx, model);
        });
    }

    private static void assertEveryReplayLineReplays(Launch launch, int lines,
                                                     java.util.function.Supplier<dev.lockstep.Task<?>> task) {
        assertTrue(!launch.failed().isEmpty(), () -> launch.finished.toString());
        SimulationTestFailure failure = assertInstanceOf(SimulationTestFailure.class,
                launch.failed().getFirst().failure());
        java.io.StringWriter printed = new java.io.StringWriter();
        failure.printStackTrace(new java.io.PrintWriter(printed));
        java.util.regex.Matcher found = java.util.regex.Pattern.compile("replay: (.*)").matcher(printed.toString());
        java.util.regex.Pattern exact = java.util.regex.Pattern.compile("Simulations\\.replay\\(\"([^\"]*)\", task\\).*");
        int count = 0;
        while (found.find()) {
            count++;
            String printedLine = found.group();
            java.util.regex.Matcher line = exact.matcher(found.group(1));
            assertTrue(line.matches(), "a printed replay line that is not the harness's: " + printedLine);
            SimulationTestFailure replayed = org.junit.jupiter.api.Assertions.assertThrows(
                    SimulationTestFailure.class, () -> Simulations.replay(line.group(1), task.get()), printedLine);
            assertEquals(failure.digest(), replayed.digest(), printedLine);
            assertEquals(failure.getCause().getClass(), replayed.getCause().getClass(), printedLine);
            assertEquals(failure.getCause().getMessage().lines().findFirst(),
                    replayed.getCause().getMessage().lines().findFirst(), printedLine);
        }
        assertTrue(count >= lines, "at least " + lines + " replay lines: " + printed);
    }

    @Test
    void aFailureOutsideSimulationTestSuggestsTheReplayNotSeed() {
        SimulationTestFailure failure = org.junit.jupiter.api.Assertions.assertThrows(SimulationTestFailure.class,
                () -> Simulations.run(9, FaultConfig.NONE, ctx -> {
                    throw new IllegalStateException("the value was wrong");
                }));
        assertTrue(failure.getMessage().contains("replay: Simulations.replay(\"seed=9 "), failure.getMessage());
        assertTrue(!failure.getMessage().contains("@Seed"), failure.getMessage());
    }

    @Test
    void aJdkWithoutAMemberIsToldWhichMemberNotWhichFlagOrSeed() {
        dev.lockstep.UnsupportedJdkException gone = new dev.lockstep.UnsupportedJdkException(
                "java.lang.VirtualThread.state", "26-ea+5", "Lockstep's simulator tells a yielded fiber from a woken one",
                new NoSuchFieldException("state"));
        SimulationTestFailure failure = Simulations.failure(1, Simulations.Plan.of(FaultConfig.NONE), 0,
                new RuntimeException(gone), null, true);
        String message = failure.getMessage();
        assertTrue(message.contains("java.lang.VirtualThread.state") && message.contains("Java 26-ea+5"), message);
        assertTrue(!message.contains("--add-opens") && !message.contains("@Seed") && !message.contains("replay"),
                message);
        assertEquals(null, failure.replay());
    }

    @Test
    void aJvmWithoutTheFlagsIsToldWhichFlagsNotWhichSeed() {
        IllegalStateException probe = new IllegalStateException("Lockstep fibers need JDK 25 or newer started with "
                + dev.lockstep.sim.SimRunner.OPENS_FLAG + " (this is Java 25)");
        SimulationTestFailure failure = Simulations.failure(1, Simulations.Plan.of(FaultConfig.NONE), 0,
                new RuntimeException(probe), null, true);
        String message = failure.getMessage();
        assertTrue(message.contains("fix: start the test JVM with --enable-native-access=ALL-UNNAMED --add-opens "
                + "java.base/java.lang=ALL-UNNAMED"), message);
        assertTrue(!message.contains("@Seed") && !message.contains("replay"), message);
        assertEquals(null, failure.replay());
    }

    @Test
    void anOpenFileLimitRefusesTheDescriptorPastItWithEmfileOnEverySeed() {
        Launch limited = Launch.run(Fixtures.OpenFileLimitFixture.class);
        assertTrue(limited.failed().isEmpty(), () -> limited.finished.toString());
        assertEquals(3, Fixtures.seen.size(), Fixtures.seen::toString);
        for (String outcome : Fixtures.seen) {
            // Descriptors 0 to 2 are taken, so at most 17 blobs fit under 20; the refusal is the typed error.
            java.util.regex.Matcher opened = java.util.regex.Pattern.compile("opened (\\d+); refused: (.*)")
                    .matcher(outcome);
            assertTrue(opened.matches(), outcome);
            int count = Integer.parseInt(opened.group(1));
            assertTrue(count > 0 && count <= 17, outcome);
            assertTrue(opened.group(2).contains("EMFILE"), outcome);
        }
        Fixtures.reset();
        Launch unlimited = Launch.run(Fixtures.NoOpenFileLimitFixture.class);
        assertTrue(unlimited.failed().isEmpty(), () -> unlimited.finished.toString());
        assertEquals(List.of("opened 40; refused: none"), Fixtures.seen, "without a limit nothing is refused");
    }

    @Test
    void aFailureUnderAnOpenFileLimitReplaysUnderItFromItsPrintedLine() {
        Launch launch = Launch.run(Fixtures.OpenFileLimitFailureFixture.class);
        SimulationTestFailure failure = assertInstanceOf(SimulationTestFailure.class,
                launch.failed().getFirst().failure());
        assertEquals(20, Simulations.parseReplay(failure.replay()).plan().openFileLimit(), failure.replay());
        SimulationTestFailure replayed = org.junit.jupiter.api.Assertions.assertThrows(SimulationTestFailure.class,
                () -> Simulations.replay(failure.replay(),
                        Fixtures.OpenFileLimitFailureFixture::thirtyBlobs));
        assertEquals(failure.digest(), replayed.digest(), "the replay fails at the same point of the same run");
        assertTrue(replayed.getMessage().contains("EMFILE"), replayed.getMessage());
        // The same line without the limit passes: the limit is what the line must carry.
        Simulations.replay(failure.replay().replace(" openFileLimit=20", ""),
                Fixtures.OpenFileLimitFailureFixture::thirtyBlobs);
    }

    @Test
    void anOpenFileLimitOutOfRangeIsRefusedNamingIt() {
        Launch launch = Launch.run(Fixtures.BadOpenFileLimitFixture.class);
        assertEquals(List.of(), launch.finished);
        assertEquals(List.of(), Fixtures.seen);
        Throwable refusal = launch.failedContainers.getFirst().failure();
        assertInstanceOf(IllegalArgumentException.class, refusal);
        assertTrue(refusal.getMessage().contains("@SimulationTest(openFileLimit = 3)"), refusal.getMessage());
        for (int bad : new int[] {0, 3, dev.lockstep.sim.os.SimKernel.MAX_FDS + 1}) {
            IllegalArgumentException planRefusal = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class,
                    () -> Simulations.Plan.of(FaultConfig.NONE).withOpenFileLimit(bad));
            assertTrue(planRefusal.getMessage().contains("was " + bad), planRefusal.getMessage());
        }
        IllegalArgumentException badLine = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> Simulations.replay(
                        Simulations.Plan.of(FaultConfig.NONE).replayText(1) + " openFileLimit=99999999999",
                        ctx -> null));
        assertTrue(badLine.getMessage().contains("openFileLimit=99999999999"), badLine.getMessage());
    }

    @Test
    void annotationValuesNoSweepCanRunWithAreRefusedNamingThem() {
        Launch launch = Launch.run(Fixtures.BadValuesFixture.class);
        assertEquals(List.of(), launch.finished, "no seed runs");
        assertEquals(List.of(), Fixtures.seen);
        List<String> messages = launch.failedContainers.stream().map(done -> done.failure().getMessage()).toList();
        for (String named : List.of("@SimulationTest(firstSeed = 9223372036854775807, seeds = 2)",
                "@SimulationTest(workers = 0)", "@SimulationTest(crashes = -1)",
                "@SimulationTest(crashWithinMillis = 0)")) {
            assertTrue(messages.stream().anyMatch(message -> message.contains(named)), named + " in " + messages);
        }
    }
}
