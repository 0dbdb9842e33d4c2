package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** {@link SimRunner#ticker}: the time source a cache or stopwatch takes, on simulated time. */
class TickerTest {

    @Test
    void aStopwatchOnTheTickerMeasuresSimulatedTimeAndTheTickerIsTheClock() {
        long[] measured = new long[2];
        SimRunner.seeded(2).start(ctx -> {
            LongSupplier ticker = SimRunner.control(ctx).ticker();
            long started = ticker.getAsLong();
            ctx.sleep(Duration.ofMinutes(50));
            measured[0] = ticker.getAsLong() - started;
            Instant now = ctx.now();
            measured[1] = ticker.getAsLong() - (now.getEpochSecond() * 1_000_000_000L + now.getNano());
            return null;
        });
        assertEquals(Duration.ofMinutes(50).toNanos(), measured[0]);
        assertEquals(0, measured[1], "the ticker reads the simulated clock");
    }

    @Test
    void anExpiryOnTheTickerFollowsSimulatedTime() {
        // What a cache with expire-after-write does with its ticker: an entry written at t is fresh until t + ttl.
        String result = SimRunner.seeded(1).start(ctx -> {
            LongSupplier ticker = SimRunner.ticker(ctx);
            long expiresAt = ticker.getAsLong() + Duration.ofMinutes(10).toNanos();
            ctx.sleep(Duration.ofMinutes(9));
            assertTrue(ticker.getAsLong() < expiresAt, "still fresh after 9 simulated minutes");
            ctx.sleep(Duration.ofMinutes(2));
            assertTrue(ticker.getAsLong() >= expiresAt, "expired after 11 simulated minutes");
            return "ok";
        });
        assertEquals("ok", result);
    }

    @Test
    void tickerReadsAreAudited() {
        String withReads = digest(true);
        assertEquals(withReads, digest(true));
        assertTrue(!withReads.equals(digest(false)), "reading the ticker is an event of the run");
    }

    private static String digest(boolean read) {
        SimRunner runner = SimRunner.seeded(3);
        runner.start(ctx -> {
            if (read) {
                SimRunner.ticker(ctx).getAsLong();
            }
            return null;
        });
        return runner.digest();
    }
}
