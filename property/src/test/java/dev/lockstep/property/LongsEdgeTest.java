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

/** Generators over ranges that end at an edge of long. */
class LongsEdgeTest {

    private static PropertyFailure failure(Runnable run) {
        return assertThrows(PropertyFailure.class, run::run);
    }

    @Test
    void longsDownToMinValueAndUpToZero() {
        List<Long> seen = new ArrayList<>();
        PropertyCheck.named("edge").seed(1).tries(200).forAll(Gen.longs(Long.MIN_VALUE, 0), seen::add);
        assertTrue(seen.stream().allMatch(x -> x <= 0), seen::toString);
    }

    @Test
    void longsFromMinValueToZeroShrinkTowardsZero() {
        PropertyFailure f = failure(() -> PropertyCheck.named("edge").seed(2).tries(300)
                .forAll(Gen.longs(Long.MIN_VALUE, 0), x -> assertTrue(x > -1000)));
        assertEquals(List.of(-1000L), f.shrunk(), f::getMessage);
        List<Long> seen = new ArrayList<>();
        PropertyCheck.named("edge").seed(3).tries(300).forAll(Gen.longs(Long.MIN_VALUE, 0), seen::add);
        assertTrue(seen.contains(Long.MIN_VALUE) && seen.contains(0L), seen::toString);
    }
}
