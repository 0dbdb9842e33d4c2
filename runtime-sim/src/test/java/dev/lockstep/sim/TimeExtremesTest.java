package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Context;
import dev.lockstep.sim.os.NodeClock;
import dev.lockstep.sim.os.SimClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Time that a caller, a configuration or the seed pushes to the end of what epoch nanoseconds hold: a clock step
 * past it is refused naming the step, a clock that gets there by drift stands still with every later deadline
 * never coming, and a run whose time limit lies beyond it ends as timed out. No run spins without time passing.
 */
@org.junit.jupiter.api.Tag("adversarial")
class TimeExtremesTest {
    /** The latest time a node's clock shows. */
    private static final Instant LATEST = Instant.EPOCH.plusNanos(Long.MAX_VALUE - 1);
    /** How many wake-ups a node below may have before it calls that a spin and fails the run. */
    private static final int WAKE_LIMIT = 10_000;

    private static SimRunner runner(long seed) {
        return SimRunner.of(SimConfig.builder().seed(seed).workers(1).build());
    }

    /** A node that sleeps {@code each} again and again, counting its wake-ups, and fails if they never end. */
    private static dev.lockstep.Task<Void> sleeper(Duration each, long[] wakes) {
        return (Context c) -> {
            while (true) {
                c.sleep(each);
                if (++wakes[0] > WAKE_LIMIT) {
                    throw new IllegalStateException(wakes[0] + " wake-ups: the node's sleeps end without time passing"
                            + " at " + c.now());
                }
            }
        };
    }

    @Test
    void aClockStepPastTheEndOfTimeIsRefusedNamingTheStepAndTheClockIsUnchanged() {
        long[] wakes = new long[1];
        runner(1).start(ctx -> {
            SimNode node = SimCluster.of(ctx).start(sleeper(Duration.ofMillis(1), wakes));
            ctx.sleep(Duration.ofMillis(5));
            Instant before = node.clockNow();
            Duration threeCenturies = Duration.ofDays(365L * 300);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> node.stepClock(threeCenturies));
            assertTrue(refused.getMessage().contains("node 1") && refused.getMessage().contains(threeCenturies.toString())
                    && refused.getMessage().contains(before.toString())
                    && refused.getMessage().contains(LATEST.toString()), refused.getMessage());
            assertThrows(IllegalArgumentException.class, () -> node.stepClock(Duration.between(before, LATEST)
                    .plusNanos(1)));
            assertEquals(before, node.clockNow());
            long wokeBefore = wakes[0];
            ctx.sleep(Duration.ofMillis(10));
            assertTrue(wakes[0] >= wokeBefore + 9, "the node goes on: " + wokeBefore + " then " + wakes[0]);
            return null;
        });
    }

    @Test
    void aNodeWhoseWallClockStepsToTheEndOfTimeSleepsOnItsMonotonicClockInsteadOfSpinning() {
        long[] wakes = new long[1];
        runner(2).start(ctx -> {
            SimNode node = SimCluster.of(ctx).start(sleeper(Duration.ofMillis(1), wakes));
            ctx.sleep(Duration.ofMillis(5));
            node.stepClock(Duration.between(node.clockNow(), LATEST.minusMillis(3)));
            long wokeBefore = wakes[0];
            ctx.sleep(Duration.ofMillis(50));
            assertEquals(LATEST, node.clockNow());
            // Sleeps run on the monotonic clock, which a step does not move: one wake-up a millisecond, as before
            // the step, where a saturated clock made every 1 ms sleep end at once.
            long woke = wakes[0] - wokeBefore;
            assertTrue(woke >= 45 && woke <= 51, "a 1 ms sleeper woke " + woke + " times in 50 ms after the step");
            return null;
        });
    }

    @Test
    void aNodeDriftingAheadStandsStillAtTheEndOfTime() {
        long[] wakes = new long[1];
        SimRunner.of(SimConfig.builder().seed(3).timeLimit(Duration.ofNanos(Long.MAX_VALUE)).build()).start(ctx -> {
            SimNode node = SimCluster.of(ctx).start(sleeper(Duration.ofDays(1000), wakes));
            node.driftClock(NodeClock.MAX_DRIFT_PPM);
            ctx.sleepUntil(Instant.EPOCH.plusNanos(SimClock.LAST_NANOS).minus(Duration.ofDays(1)));
            assertEquals(LATEST, node.clockNow());
            // About 236 years at 110 % is 95,000 days: 94 sleeps of 1,000 fit before the end, then none ends.
            assertTrue(wakes[0] < 100, wakes[0] + " wake-ups");
            return null;
        });
    }

    @Test
    void aStepBackPastTheEpochTakesTheClockToTheEpoch() {
        SimRunner.of(SimConfig.builder().seed(4).startNanos(1_000_000_000L).build()).start(ctx -> {
            SimNode node = SimCluster.of(ctx).start(sleeper(Duration.ofMillis(1), new long[1]));
            node.stepClock(Duration.ofSeconds(-10));
            assertEquals(Instant.EPOCH, node.clockNow());
            node.stepClock(Duration.ofSeconds(Long.MIN_VALUE));
            assertEquals(Instant.EPOCH, node.clockNow());
            return null;
        });
    }

    @Test
    void aRunWhoseLimitLiesPastTheEndOfTimeEndsTimedOutThere() {
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> SimRunner.of(SimConfig.builder()
                .seed(5).timeLimit(Duration.ofNanos(Long.MAX_VALUE)).build()).start(ctx -> {
                    ctx.sleepUntil(Instant.EPOCH.plusNanos(SimClock.LAST_NANOS).plusMillis(1));
                    return null;
                }));
        assertTrue(failure.getMessage().contains("timed out") && failure.getMessage().contains("SimClock.LAST_NANOS")
                && failure.getMessage().contains(Instant.EPOCH.plusNanos(SimClock.LAST_NANOS).toString()),
                failure.getMessage());
    }

    @Test
    void aRunSleepsToTheEndOfTimeAndStopsThere() {
        Instant[] reached = new Instant[1];
        SimulationFailure failure = assertThrows(SimulationFailure.class, () -> SimRunner.of(SimConfig.builder()
                .seed(6).timeLimit(Duration.ofNanos(Long.MAX_VALUE)).build()).start(ctx -> {
                    ctx.sleepUntil(Instant.EPOCH.plusNanos(SimClock.LAST_NANOS));
                    reached[0] = ctx.now();
                    while (true) {
                        ctx.sleep(Duration.ofMillis(1));
                    }
                }));
        assertEquals(Instant.EPOCH.plusNanos(SimClock.LAST_NANOS), reached[0]);
        assertTrue(failure.getMessage().contains("timed out"), failure.getMessage());
    }
}
