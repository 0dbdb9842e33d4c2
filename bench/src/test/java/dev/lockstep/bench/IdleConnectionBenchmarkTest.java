package dev.lockstep.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The benchmark's command line: a bad count or a missing server name is refused naming it, before any run. */
class IdleConnectionBenchmarkTest {
    @Test
    void aCountBelowOneOrNotANumberIsRefusedNamingTheOptionAndValue() {
        assertEquals("--connections must be a number of at least 1, was 0", assertThrows(
                IllegalArgumentException.class,
                () -> IdleConnectionBenchmark.main(new String[] {"--connections", "0"})).getMessage());
        assertEquals("--rounds must be a number of at least 1, was -2", assertThrows(IllegalArgumentException.class,
                () -> IdleConnectionBenchmark.main(new String[] {"--rounds", "-2"})).getMessage());
        assertEquals("--connections must be a number of at least 1, was '10k'", assertThrows(
                IllegalArgumentException.class,
                () -> IdleConnectionBenchmark.main(new String[] {"--connections", "10k"})).getMessage());
        assertEquals(3, IdleConnectionBenchmark.atLeastOne("--rounds", "3"));
    }

    @Test
    void aServerWithoutItsNameIsRefused() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> IdleConnectionBenchmark.main(new String[] {"server"}));
        assertEquals(true, refused.getMessage().startsWith("server needs exactly one server name, was 0 arguments"),
                refused.getMessage());
    }
}
