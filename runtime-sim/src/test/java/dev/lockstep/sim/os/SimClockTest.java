package dev.lockstep.sim.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SimClockTest {

    @Test
    void startsWhereConfiguredAndMovesOnlyForward() {
        assertEquals(0, new SimClock().nowNanos());
        SimClock clock = new SimClock(1_700_000_000_000_000_000L);
        assertEquals(1_700_000_000_000_000_000L, clock.nowNanos());
        clock.advanceTo(1_700_000_000_000_000_500L);
        clock.advanceBy(500);
        clock.advanceTo(clock.nowNanos());
        assertEquals(1_700_000_000_000_001_000L, clock.nowNanos());
        IllegalArgumentException backwards = assertThrows(IllegalArgumentException.class, () -> clock.advanceTo(5));
        assertTrue(backwards.getMessage().contains("backwards"));
        assertThrows(IllegalArgumentException.class, () -> clock.advanceBy(-1));
        assertThrows(IllegalArgumentException.class, () -> clock.advanceBy(Long.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> new SimClock(-1));
    }
}
