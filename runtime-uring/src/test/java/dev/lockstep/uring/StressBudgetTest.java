package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The stress tests' budget: 6 s unless the property says otherwise, and a bad value is refused naming it. */
class StressBudgetTest {
    @Test
    void unsetIsSixSecondsAndAWholeNumberIsTaken() {
        assertEquals(6, StressBudget.seconds(null));
        assertEquals(60, StressBudget.seconds("60"));
    }

    @Test
    void aBadValueIsRefusedNamingIt() {
        assertEquals("lockstep.stress.seconds must be a whole number of seconds, was '6s'",
                assertThrows(IllegalArgumentException.class, () -> StressBudget.seconds("6s")).getMessage());
        assertEquals("lockstep.stress.seconds must be between 1 and 60 seconds, was 0",
                assertThrows(IllegalArgumentException.class, () -> StressBudget.seconds("0")).getMessage());
    }

    /** A budget longer than a stress test's timeout allows is refused, not left to time the test out. */
    @Test
    void aBudgetBeyondTheStressTestsTimeoutsIsRefused() {
        assertEquals(60, StressBudget.seconds("60"));
        assertEquals("lockstep.stress.seconds must be between 1 and 60 seconds, was 61",
                assertThrows(IllegalArgumentException.class, () -> StressBudget.seconds("61")).getMessage());
    }
}
