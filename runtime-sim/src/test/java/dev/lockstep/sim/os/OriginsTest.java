package dev.lockstep.sim.os;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class OriginsTest {
    /** Origins names the run loop by its class name (it is package-private in another package): it must exist. */
    @Test
    void theLoopTheWalkStopsAtIsTheSimulatorsRunLoop() throws ClassNotFoundException {
        assertEquals(Origins.LOOP, Class.forName(Origins.LOOP, false, OriginsTest.class.getClassLoader()).getName());
    }
}
