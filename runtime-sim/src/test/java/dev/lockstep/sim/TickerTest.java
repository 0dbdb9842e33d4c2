package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.base.Stopwatch;
import com.google.common.base.Ticker;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Guava's caches and stopwatches on simulated time through {@link SimRunner#ticker}. */
class TickerTest {

    @Test
    void aCacheExpiresOnSimulatedTime() {
        String result = SimRunner.seeded(1).start(ctx -> {
            Ticker ticker = SimRunner.ticker(ctx);
            Cache<String, String> cache = CacheBuilder.newBuilder().ticker(ticker)
                    .expireAfterWrite(Duration.ofMinutes(10)).build();
            cache.put("k", "v");
            ctx.sleep(Duration.ofMinutes(9));
            assertNotNull(cache.getIfPresent("k"), "still fresh after 9 simulated minutes");
            ctx.sleep(Duration.ofMinutes(2));
            assertNull(cache.getIfPresent("k"), "expired after 11 simulated minutes");
            return "ok";
        });
        assertEquals("ok", result);
    }

    @Test
    void aStopwatchMeasuresSimulatedTimeAndTheTickerIsTheClock() {
        long[] measured = new long[2];
        SimRunner.seeded(2).start(ctx -> {
            Ticker ticker = SimRunner.control(ctx).ticker();
            Stopwatch stopwatch = Stopwatch.createStarted(ticker);
            ctx.sleep(Duration.ofMinutes(50));
            measured[0] = stopwatch.elapsed(TimeUnit.MINUTES);
            java.time.Instant now = ctx.now();
            measured[1] = ticker.read() - (now.getEpochSecond() * 1_000_000_000L + now.getNano());
            return null;
        });
        assertEquals(50, measured[0]);
        assertEquals(0, measured[1], "the ticker reads the simulated clock");
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
                SimRunner.ticker(ctx).read();
            }
            return null;
        });
        return runner.digest();
    }
}
