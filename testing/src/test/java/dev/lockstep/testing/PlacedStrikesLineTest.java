package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The line of an acknowledgement strike says which acknowledgers are back and which fail-stopped and stay down. */
class PlacedStrikesLineTest {
    private static final Duration OUTAGE = Duration.ofMillis(3);
    private static final Duration LEADER_DOWN = Duration.ofMillis(40);

    @Test
    void everyAcknowledgerBackIsSaidOnce() {
        assertEquals("power loss of leader node 1 after nodes [2, 3] answered; they are back after 3 ms, the leader"
                + " after 40 ms", PlacedStrikes.answeredLine(1, true, List.of(2, 3), List.of(2, 3), List.of(),
                OUTAGE, LEADER_DOWN));
    }

    @Test
    void aFailStoppedAcknowledgerIsListedApartAsStayingDown() {
        assertEquals("power loss of leader node 1 after nodes [2, 3] answered; nodes [2] are back after 3 ms, nodes"
                + " [3] fail-stopped and stay down, the leader after 40 ms", PlacedStrikes.answeredLine(1, true,
                List.of(2, 3), List.of(2), List.of(3), OUTAGE, LEADER_DOWN));
        assertEquals("leader node 1 already down after nodes [2, 3] answered; nodes [2, 3] fail-stopped and stay"
                + " down", PlacedStrikes.answeredLine(1, false, List.of(2, 3), List.of(), List.of(2, 3), OUTAGE,
                LEADER_DOWN));
    }
}
