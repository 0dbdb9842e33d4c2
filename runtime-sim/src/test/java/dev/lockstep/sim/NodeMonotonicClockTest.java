package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A node's two clocks: steps move its wall clock ({@code ctx.now()}) and not its monotonic clock
 * ({@code ctx.monotonicNanos()}, what its sleeps run on); a drift makes both run fast, as NTP slewing would. A
 * lease measured on the monotonic clock lasts what it should through steps an hour either way.
 */
class NodeMonotonicClockTest {
    private static final long MILLI = 1_000_000L;

    private static SimRunner runner(long seed) {
        return SimRunner.of(SimConfig.builder().seed(seed).workers(1).build());
    }

    @Test
    void aLeaseOnTheMonotonicClockOutlivesStepsOfTheWallClock() {
        long[] heldNanos = new long[1];
        Duration[] wallPassed = new Duration[1];
        int[] checks = new int[1];
        runner(3).start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            SimNode node = cluster.start(c -> {
                long granted = c.monotonicNanos();
                Instant wallGranted = c.now();
                long leaseEnd = granted + 100 * MILLI;
                while (c.monotonicNanos() < leaseEnd) {           // the lease holder's check
                    c.sleep(Duration.ofMillis(10));
                    checks[0]++;
                    c.now();                                       // read as a log line would
                }
                heldNanos[0] = c.monotonicNanos() - granted;
                wallPassed[0] = Duration.between(wallGranted, c.now());
                return null;
            });
            ctx.sleep(Duration.ofMillis(25));
            node.stepClock(Duration.ofHours(1));
            ctx.sleep(Duration.ofMillis(25));
            node.stepClock(Duration.ofHours(-2));
            ctx.sleep(Duration.ofMillis(200));
            return null;
        });
        assertEquals(10, checks[0], "ten 10 ms sleeps make the 100 ms lease");
        assertTrue(heldNanos[0] >= 100 * MILLI && heldNanos[0] < 101 * MILLI, "held for " + heldNanos[0] + " ns");
        assertTrue(wallPassed[0].compareTo(Duration.ofHours(1)) > 0,
                "meanwhile the wall clock went an hour ahead, and held still after the step back: " + wallPassed[0]);
    }

    @Test
    void aDriftMakesTheMonotonicClockAndTheSleepsOnItRunFast() {
        long[] nodeNanos = new long[1];
        long[] globalNanos = new long[1];
        runner(5).start(ctx -> {
            SimCluster cluster = SimCluster.of(ctx);
            boolean[] done = new boolean[1];
            long start = ctx.monotonicNanos();
            SimNode node = cluster.start(c -> {
                c.sleep(Duration.ofMillis(1));                   // after the drift is set
                long before = c.monotonicNanos();
                c.sleep(Duration.ofSeconds(1));
                nodeNanos[0] = c.monotonicNanos() - before;
                done[0] = true;
                return null;
            });
            node.driftClock(100_000);                            // 10 % fast
            while (!done[0]) {
                ctx.sleep(Duration.ofMillis(1));
            }
            globalNanos[0] = ctx.monotonicNanos() - start;
            return null;
        });
        assertTrue(nodeNanos[0] >= 1000 * MILLI && nodeNanos[0] < 1001 * MILLI, "the node slept " + nodeNanos[0]);
        // 1 ms before the drift, then 1 s on a clock 10 % fast (about 909 ms), then the controller's 1 ms polls.
        assertTrue(globalNanos[0] >= 905 * MILLI && globalNanos[0] <= 915 * MILLI,
                "a second on the node's clock was " + globalNanos[0] + " ns of the simulation's");
    }
}
