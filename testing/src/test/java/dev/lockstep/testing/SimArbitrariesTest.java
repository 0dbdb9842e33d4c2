package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The jqwik arbitraries: a failing property shrinks to the smallest fault configuration that still fails. */
class SimArbitrariesTest {

    @Test
    void aFailingPropertyShrinksToTheOneFaultThatMatters() {
        ShrinkFixture.failing.clear();
        Launch launch = Launch.run(ShrinkFixture.class);
        assertEquals(1, launch.failed().size(), () -> "expected the property to fail: " + launch.finished);
        assertFalse(ShrinkFixture.failing.isEmpty());
        for (FaultConfig config : ShrinkFixture.failing) {
            assertTrue(config.has(Fault.WRITE_ERRORS), "failed without write errors: " + config);
        }
        FaultConfig last = ShrinkFixture.failing.getLast();
        assertEquals(Set.of(Fault.WRITE_ERRORS), last.enabled(), "shrinking ended at " + last + " after "
                + ShrinkFixture.failing.size() + " failing tries");
        String failure = String.valueOf(launch.failed().getFirst().failure());
        assertTrue(failure.contains("write-errors"), failure);
    }

    @Test
    void faultConfigsParseWhatTheyPrint() {
        for (String profile : new String[] {"none", "all", "crash+sync-errors", "partition@2.5", "all@0.5"}) {
            assertEquals(profile, FaultConfig.parse(profile).toString());
        }
        assertEquals(FaultConfig.swarm(17), FaultConfig.swarm(17));
        assertEquals(FaultConfig.of(Fault.CRASH, Fault.DISK_FULL), FaultConfig.parse("disk-full,crash"));
    }
}
