package dev.lockstep;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.sync.Channel;
import org.junit.jupiter.api.Test;

/**
 * The invariants the main code states as {@code assert}s are checked in every test run: the build runs each test
 * JVM with {@code -ea} (parent {@code pom.xml}), and a configuration that drops it fails here.
 */
class AssertionsEnabledTest {

    @Test
    void theTestJvmRunsAsserts() {
        boolean checked = false;
        assert checked = true;
        assertTrue(checked, "assert statements do not run in this test JVM: Surefire's enableAssertions is off");
    }

    @Test
    void theMainCodeRunsItsAsserts() {
        assertTrue(Channel.class.desiredAssertionStatus(),
                "the main classes of dev.lockstep.sync are loaded with their asserts off");
    }
}
