package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.property.PropertyCheck;
import dev.lockstep.property.PropertyFailure;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The simulator generators: a failing property shrinks to the smallest fault configuration that still fails. */
class SimGeneratorsTest {

    @Test
    void aFailingPropertyShrinksToTheOneFaultThatMatters() {
        ShrinkFixture.failing.clear();
        Launch launch = Launch.run(ShrinkFixture.class);
        assertEquals(1, launch.failed().size(), () -> "expected the property to fail: " + launch.finished);
        assertFalse(ShrinkFixture.failing.isEmpty());
        for (FaultConfig config : ShrinkFixture.failing) {
            assertTrue(config.has(Fault.WRITE_ERRORS), "failed without write errors: " + config);
        }
        PropertyFailure failure = assertInstanceOf(PropertyFailure.class, launch.failed().getFirst().failure());
        FaultConfig shrunk = (FaultConfig) failure.shrunk().get(1);
        assertEquals(Set.of(Fault.WRITE_ERRORS), shrunk.enabled(), failure::getMessage);
        assertEquals(failure.original().get(0), failure.shrunk().get(0), "the seed is not shrunk");
        assertTrue(((FaultConfig) failure.original().get(1)).enabled().size() > 1, failure::getMessage);
        assertTrue(failure.getMessage().contains("shrunk:   seed = " + failure.shrunk().get(0)
                + ", faults = write-errors"), failure::getMessage);
    }

    @Test
    void ratesShrinkToTheLowestIntensityThatStillFails() {
        // Planted: the property fails whenever write errors are on at twice the default rate or more.
        PropertyFailure failure = assertThrows(PropertyFailure.class, () -> PropertyCheck.named("intensity")
                .seed(3).tries(100).forAll(SimGenerators.faultConfigsWithIntensity(), faults -> assertFalse(
                        faults.has(Fault.WRITE_ERRORS) && faults.intensity() >= 2.0, "too many write errors")));
        assertEquals(List.of(FaultConfig.of(Fault.WRITE_ERRORS).withIntensity(2.0)), failure.shrunk(),
                failure::getMessage);
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
