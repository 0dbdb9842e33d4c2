package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.ReceiveLimits;
import dev.lockstep.Stream;
import org.junit.jupiter.api.Test;

/**
 * Receive limits as configuration: bad bounds are refused naming the bound and the value, the simulator's replay
 * line carries limits that were set (and only those), and a configuration rebuilt from its builder keeps them.
 */
class ReceiveLimitsConfigTest {

    @Test
    void badBoundsAreRefusedNamingTheBoundAndTheValue() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> new ReceiveLimits(0, 1));
        assertTrue(zero.getMessage().contains("perConnectionBytes") && zero.getMessage().contains("was 0"),
                zero.getMessage());
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> new ReceiveLimits(Stream.MAX_RECV_BYTES + 1, 1));
        assertTrue(tooLong.getMessage().contains(Integer.toString(Stream.MAX_RECV_BYTES + 1)), tooLong.getMessage());
        IllegalArgumentException runner = assertThrows(IllegalArgumentException.class,
                () -> new ReceiveLimits(1, -5));
        assertTrue(runner.getMessage().contains("perRunnerBytes") && runner.getMessage().contains("was -5"),
                runner.getMessage());
        InvalidConfigException missing = assertThrows(InvalidConfigException.class,
                () -> SimConfig.builder().receiveLimits(null).build());
        assertTrue(missing.getMessage().contains("receiveLimits"), missing.getMessage());
    }

    @Test
    void theReplayLineCarriesLimitsThatWereSetAndOnlyThose() {
        SimConfig bounded = SimConfig.builder().seed(9).receiveLimits(new ReceiveLimits(1024, 1 << 20)).build();
        assertTrue(bounded.toJava().contains(".receiveLimits(new ReceiveLimits(1024, 1048576L))"), bounded.toJava());
        assertEquals(new ReceiveLimits(1024, 1 << 20), bounded.toBuilder().build().receiveLimits());
        SimConfig plain = SimConfig.builder().seed(9).build();
        assertFalse(plain.toJava().contains("receiveLimits"), plain.toJava());
        assertEquals(ReceiveLimits.DEFAULT, plain.receiveLimits());
    }
}
