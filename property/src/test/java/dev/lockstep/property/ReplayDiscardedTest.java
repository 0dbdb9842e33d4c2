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
}
