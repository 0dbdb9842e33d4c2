package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RacingCloserTest {
    @Test
    void aCloserWhoseFibersNeverBeganClosesAndReportsThatItDidNotRace() {
        AtomicInteger closes = new AtomicInteger();
        String gaveUp = RacingCloser.start(() -> false, 0, closes::incrementAndGet, Duration.ofMillis(20)).join();
        assertEquals(1, closes.get(), "the closer must close even when it gives up");
        assertNotNull(gaveUp, "a round that never raced must be reported");
        assertTrue(gaveUp.contains("never began within PT0.02S"), gaveUp);
    }

    @Test
    void aCloserWhoseFibersBeganReportsNothing() {
        AtomicInteger closes = new AtomicInteger();
        assertNull(RacingCloser.start(() -> true, 1_000, closes::incrementAndGet).join());
        assertEquals(1, closes.get());
    }
}
