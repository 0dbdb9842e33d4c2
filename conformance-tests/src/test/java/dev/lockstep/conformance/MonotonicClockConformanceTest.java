package dev.lockstep.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Handle;
import java.time.Duration;
import java.time.Instant;

/**
 * {@code Clock.monotonicNanos()} on every runtime: it measures sleeps, never goes back from one worker to
 * another, and {@code sleepUntil} waits on it.
 */
@Group(ReadmeGroup.MONOTONIC_CLOCK)
class MonotonicClockConformanceTest {
    private static final long MILLI = 1_000_000L;

    /** A reading after a sleep is at least the sleep later. */
    @Conformance
    void testTheMonotonicClockMeasuresSleeps(Runtimes rt) {
        rt.runner().start(ctx -> {
            for (int i = 0; i < 10; i++) {
                long before = ctx.monotonicNanos();
                ctx.sleep(Duration.ofMillis(2));
                long slept = ctx.monotonicNanos() - before;
                assertTrue(slept >= 2 * MILLI, "a 2 ms sleep measured " + slept + " ns");
            }
            return null;
        });
    }

    /** A reading on one worker, then one on another that happened after it: never less. */
    @Conformance
    void testTheMonotonicClockNeverGoesBackAcrossWorkers(Runtimes rt) {
        rt.runner().start(ctx -> {
            for (int i = 0; i < 20; i++) {
                int worker = i % ctx.workers();
                long first = ctx.monotonicNanos();
                Handle<Long> later = ctx.child("reader" + i).spawnOn(worker, c -> c.monotonicNanos());
                long second = later.await();
                assertTrue(second >= first, "worker " + worker + " read " + second + " after " + first);
                assertTrue(ctx.monotonicNanos() >= second, "read back on the first worker after " + second);
            }
            return null;
        });
    }

    /** {@code sleepUntil} of a wall-clock instant waits that long on the monotonic clock. */
    @Conformance
    void testSleepUntilWaitsOnTheMonotonicClock(Runtimes rt) {
        rt.runner().start(ctx -> {
            long before = ctx.monotonicNanos();
            Instant deadline = ctx.now().plusMillis(20);
            ctx.sleepUntil(deadline);
            long waited = ctx.monotonicNanos() - before;
            assertTrue(waited >= 20 * MILLI, "waited " + waited + " ns for 20 ms");
            assertTrue(!ctx.now().isBefore(deadline), "the wall clock is past the deadline");
            before = ctx.monotonicNanos();
            ctx.sleepUntil(Instant.EPOCH);
            ctx.sleepUntil(Instant.MIN);
            assertEquals(true, ctx.monotonicNanos() - before < 1000 * MILLI, "a past deadline returns at once");
            return null;
        });
    }
}
