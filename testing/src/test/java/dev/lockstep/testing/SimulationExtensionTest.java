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
        assertEquals(List.of("seed 10 simulated=true", "seed 11 simulated=true", "seed 12 simulated=true",
                "seed 13 simulated=true", "seed 14 simulated=true"), Fixtures.seen);
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
        assertTrue(message.contains("replay: SimRunner.of(SimConfig.builder().seed(3L)"), message);
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
        assertEquals(List.of("seed 1 lifetime 0 restarts 0", "seed 1 lifetime 1 restarts 1",
                "seed 1 lifetime 2 restarts 2"), Fixtures.seen.subList(0, 3));
    }

    @Test
    void uringRunsOnceMoreOnTheRealRuntime() {
        Launch launch = Launch.run(Fixtures.UringFixture.class);
        assertEquals(List.of("seed 1", "seed 2", "runtime-uring"), launch.names());
        assertTrue(launch.failed().isEmpty(), () -> launch.failed().toString());
        assertEquals(List.of("sim seed 1", "sim seed 2", "uring seed 1"), Fixtures.seen);
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
}
