package dev.lockstep.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/** A replayed case that is discarded is not a passing run. */
class ReplayDiscardedTest {

    @Test
    void aReplayThatIsDiscardedIsNotReportedAsPassing() {
        // The replayed case does not reach the body (assumption): one try that "passed" would hide it.
        AssertionError thrown = null;
        try {
            PropertyCheck.Report report = PropertyCheck.named("r").replay("5").forAll(Gen.ints(0, 9), x -> {
                org.junit.jupiter.api.Assumptions.assumeTrue(x < 5);
                throw new AssertionError("bug");
            });
            thrown = new AssertionError("replay reported " + report);
        } catch (org.opentest4j.TestAbortedException expected) {
            // fine: JUnit reports it as skipped
        }
        if (thrown != null) {
            throw thrown;
        }
    }

    @Test
    void aReplayWhoseChoicesAreNotAsciiDigitsIsRefusedNamingThem() {
        // Long.parseLong read Arabic-Indic digits and a '+': "\u0665" replayed choice 5 while showing no 5.
        for (String choice : new String[] {"\u0665", "+5", "\uFF15", "5L", "-1"}) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> PropertyCheck.named("r").replay("0 " + choice), choice);
            assertTrue(refused.getMessage().contains("'" + choice + "' in \"0 " + choice + "\" is not one"),
                    refused.getMessage());
        }
        assertEquals(1, replayed("3").size(), "a replay in ASCII digits runs its one case");
    }

    private static List<Integer> replayed(String choices) {
        List<Integer> seen = new ArrayList<>();
        PropertyCheck.named("r").replay(choices).forAll(Gen.ints(0, 9), seen::add);
        return seen;
    }
}
