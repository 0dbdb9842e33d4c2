package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.sim.os.SimKernel;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.discovery.DiscoverySelectors;

/** @SimulationTest(openFileLimit = n) with crashes, sweeps, checkDeterminism, @Seed, uring; Plan; replay. */
class OpenFileLimitEveryRunTest {
    private static final Pattern OUTCOME = Pattern.compile("(.*)opened (\\d+); refused: (.*)");

    @BeforeEach
    void reset() {
        Fixtures.reset();
    }

    private static void assertLimited(List<String> outcomes, int expected) {
        assertEquals(expected, outcomes.size(), outcomes::toString);
        for (String outcome : outcomes) {
            Matcher m = OUTCOME.matcher(outcome);
            assertTrue(m.matches(), outcome);
            int count = Integer.parseInt(m.group(2));
            assertTrue(count > 0 && count <= 17, outcome);
            assertTrue(m.group(3).contains("EMFILE"), outcome);
        }
    }

    static class CrashesFixture {
        @SimulationTest(seeds = 2, crashes = 2, crashWithinMillis = 1000, openFileLimit = 20, threads = 1)
        void everyLifetime(Context ctx, SimulationInfo info) {
            Fixtures.seen.add("seed " + info.seed() + " lifetime " + info.lifetime() + ": "
                    + Fixtures.opensUntilRefused(ctx, 40));
            ctx.sleep(Duration.ofSeconds(10)); // cut by the crash but in the last lifetime
        }
    }

    @Test
    void theLimitHoldsInEveryLifetime() {
        Launch launch = Launch.run(CrashesFixture.class);
        assertTrue(launch.failed().isEmpty(), () -> launch.finished.toString());
        assertLimited(Fixtures.seen, 6);
    }

    static class SweepFixture {
        @SimulationTest(seeds = 4, threads = 2, openFileLimit = 20)
        void swept(Context ctx) {
            Fixtures.seen.add(Fixtures.opensUntilRefused(ctx, 40));
        }
    }

    @Test
    void theLimitHoldsOnASweepOnSeveralThreads() {
        Launch launch = Launch.run(SweepFixture.class);
        assertTrue(launch.failed().isEmpty(), () -> launch.finished.toString());
        assertLimited(Fixtures.seen, 4);
    }

    static class DeterminismFixture {
        @SimulationTest(seeds = 2, threads = 1, checkDeterminism = true, openFileLimit = 20, crashes = 1)
        void twice(Context ctx) {
            Fixtures.seen.add(Fixtures.opensUntilRefused(ctx, 40));
        }
    }

    @Test
    void theLimitHoldsInBothRunsOfCheckDeterminism() {
        Launch launch = Launch.run(DeterminismFixture.class);
        assertTrue(launch.failed().isEmpty(), () -> launch.finished.toString());
        assertLimited(Fixtures.seen, 8); // 2 seeds x 2 runs x 2 lifetimes
    }

    static class PinnedFixture {
        @SimulationTest(seeds = 10, openFileLimit = 20)
        @Seed(7)
        void pinned(Context ctx) {
            Fixtures.seen.add(Fixtures.opensUntilRefused(ctx, 40));
        }
    }

    @Test
    void theLimitHoldsForAPinnedSeed() {
        Launch launch = Launch.run(PinnedFixture.class);
        assertTrue(launch.failed().isEmpty(), () -> launch.finished.toString());
        assertLimited(Fixtures.seen, 1);
    }

    static class UringFixture {
        @SimulationTest(seeds = 1, uring = true, openFileLimit = 20)
        void both(Context ctx, SimulationInfo info) {
            Fixtures.seen.add((info.simulated() ? "sim " : "uring ") + Fixtures.opensUntilRefused(ctx, 40));
        }
    }

    @Test
    void uringRunsUnderTheProcessLimitNotTheSimulatedOne() {
        Launch launch = Launch.run(UringFixture.class);
        assertTrue(launch.failed().isEmpty(), () -> launch.finished.toString());
        assertEquals(2, Fixtures.seen.size(), Fixtures.seen::toString);
        assertTrue(Fixtures.seen.get(0).startsWith("sim ") && Fixtures.seen.get(0).contains("EMFILE"),
                Fixtures.seen::toString);
        assertEquals("uring opened 40; refused: none", Fixtures.seen.get(1));
    }

    @Test
    void plansOldConstructorsEqualsAndToString() {
        FaultConfig none = FaultConfig.NONE;
        Duration second = Duration.ofSeconds(1);
        Duration hour = Duration.ofHours(1);
        Simulations.Plan five = new Simulations.Plan(none, 1, 0, second, hour);
        Simulations.Plan six = new Simulations.Plan(none, 1, 0, second, hour, true);
        Simulations.Plan seven = new Simulations.Plan(none, 1, 0, second, hour, true, SimKernel.MAX_FDS);
        assertEquals(seven, five);
        assertEquals(seven, six);
        assertEquals(seven, Simulations.Plan.of(none));
        assertEquals(seven.hashCode(), five.hashCode());
        Simulations.Plan limited = five.withOpenFileLimit(20);
        assertNotEquals(five, limited);
        assertEquals(20, limited.openFileLimit());
        assertTrue(limited.toString().contains("openFileLimit=20"), limited.toString());
        // Every with* keeps the limit.
        assertEquals(20, limited.withCrashes(2, second).openFileLimit());
        assertEquals(20, limited.withWorkers(3).openFileLimit());
        assertEquals(20, limited.withLeakChecks(false).openFileLimit());
        assertEquals(20, Simulations.config(1, limited).openFileLimit());
        assertTrue(limited.replayText(1).endsWith(" openFileLimit=20"), limited.replayText(1));
        assertTrue(!five.replayText(1).contains("openFileLimit"), five.replayText(1));
        assertEquals(SimKernel.MAX_FDS - 1,
                five.withOpenFileLimit(SimKernel.MAX_FDS - 1).openFileLimit());
        assertEquals(4, five.withOpenFileLimit(4).openFileLimit());
    }

    @Test
    void replayRefusesBadLimitsNamingThem() {
        String base = Simulations.Plan.of(FaultConfig.NONE).replayText(1);
        for (String bad : new String[] {"abc", "", "3", "-1", "99999999999", String.valueOf(SimKernel.MAX_FDS + 1)}) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> Simulations.replay(base + " openFileLimit=" + bad, ctx -> null), bad);
            assertTrue(refused.getMessage().contains(bad.isEmpty() ? "openFileLimit=" : bad), refused.getMessage());
        }
    }

    /** A replay line whose limit is misspelled must not quietly replay without the limit. */
    @Test
    void replayRefusesAKeyItDoesNotKnow() {
        String line = Simulations.Plan.of(FaultConfig.NONE).replayText(6) + " openFileLimt=20";
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> Simulations.replay(line, ctx -> Fixtures.OpenFileLimitFailureFixture.thirtyBlobs(ctx)));
        assertTrue(refused.getMessage().contains("openFileLimt"), refused.getMessage());
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> Simulations.replay(Simulations.Plan.of(FaultConfig.NONE).withOpenFileLimit(20).replayText(6)
                        + " openFileLimit=40", ctx -> null));
        assertTrue(twice.getMessage().contains("openFileLimit= twice"), twice.getMessage());
        // The lines the plan writes still read back.
        Simulations.replay(Simulations.Plan.of(FaultConfig.NONE).withOpenFileLimit(20).withLeakChecks(false)
                .replayText(6), ctx -> null);
    }

    /** failOnLeaks takes true or false; anything else must be refused, not read as true. */
    @Test
    void replayRefusesABadFailOnLeaks() {
        String line = Simulations.Plan.of(FaultConfig.NONE).replayText(6) + " failOnLeaks=no";
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> Simulations.replay(line, ctx -> null));
        assertTrue(refused.getMessage().contains("failOnLeaks=no"), refused.getMessage());
    }

    @Test
    void replayRefusesANonPositiveTimeLimitNamingIt() {
        String line = "seed=1 workers=1 faults=none crashes=0 crashWithinNanos=1000 timeLimitNanos=0";
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> Simulations.replay(line, ctx -> null));
        assertTrue(refused.getMessage().contains("timeLimit"), refused.getMessage());
    }

    @Test
    void aSweepFailureOnSeveralThreadsCarriesTheLimit() {
        Launch launch = Launch.run(Map.of(SimulationExtension.THREADS, "2"),
                DiscoverySelectors.selectClass(SweptFailureFixture.class));
        assertEquals(2, launch.failed().size(), () -> launch.finished.toString());
        for (Launch.Finished failed : launch.failed()) {
            SimulationTestFailure failure = assertInstanceOf(SimulationTestFailure.class, failed.failure());
            assertEquals(20, Simulations.parseReplay(failure.replay()).plan().openFileLimit(), failure.replay());
        }
    }

    static class SweptFailureFixture {
        @SimulationTest(seeds = 2, openFileLimit = 20)
        void needsThirtyBlobs(Context ctx) {
            Fixtures.OpenFileLimitFailureFixture.thirtyBlobs(ctx);
        }
    }

    static class CrashedFailureFixture {
        @SimulationTest(seeds = 1, firstSeed = 4, crashes = 2, crashWithinMillis = 5000, openFileLimit = 20)
        void failsInTheSecondLifetime(Context ctx, SimulationInfo info) {
            secondLifetime(ctx, info.lifetime());
        }

        static Void secondLifetime(Context ctx, int lifetime) {
            Fixtures.seen.add("lifetime " + lifetime + " at " + ctx.now());
            if (lifetime == 1) {
                Fixtures.OpenFileLimitFailureFixture.thirtyBlobs(ctx);
            }
            ctx.sleep(Duration.ofSeconds(10)); // cut by the crash but in the last lifetime
            return null;
        }
    }

    @Test
    void aFailureInALaterLifetimeReplaysUnderTheLimit() {
        Launch launch = Launch.run(CrashedFailureFixture.class);
        assertEquals(1, launch.failed().size(), () -> launch.finished + " " + Fixtures.seen);
        SimulationTestFailure failure = assertInstanceOf(SimulationTestFailure.class,
                launch.failed().getFirst().failure());
        assertTrue(failure.getMessage().contains("in lifetime 2 of 3"), failure.getMessage());
        assertEquals(20, Simulations.parseReplay(failure.replay()).plan().openFileLimit(), failure.replay());
        SimulationTestFailure replayed = assertThrows(SimulationTestFailure.class,
                () -> Simulations.replay(failure.replay(), ctx -> CrashedFailureFixture.secondLifetime(ctx,
                        dev.lockstep.sim.SimRunner.control(ctx).restarts())));
        assertEquals(failure.digest(), replayed.digest());
        assertTrue(replayed.getMessage().contains("EMFILE"), replayed.getMessage());
    }

    /** Plan.replayText's javadoc example, which said crashWithinMillis=20 timeLimitMillis=3600000. */
    @Test
    void replayTextIsItsJavadocExample() {
        assertEquals("seed=1 workers=1 faults=torn-writes crashes=3 crashWithinNanos=20000000"
                + " timeLimitNanos=3600000000000", Simulations.Plan.of(FaultConfig.parse("torn-writes"))
                .withCrashes(3, Duration.ofMillis(20)).replayText(1));
    }
}
