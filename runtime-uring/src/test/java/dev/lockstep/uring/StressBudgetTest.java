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
        assertEquals("lockstep.stress.seconds must be between 1 and 86400 seconds, was 0",
                assertThrows(IllegalArgumentException.class, () -> StressBudget.seconds("0")).getMessage());
    }
}
