package dev.lockstep.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the README's "Sweeping your own tests" shows: a user's own {@code @SimulationTest}
 * ({@code example.MisorderedSegmentsFixture}, the segmented log whose recovery orders segments by name) swept under
 * the {@code faultpoints} strategy fails within its annotation's 20 seeds, because its fault point rolls the log
 * over early, and the failure's {@code lockstep.replay} reruns it with the same digest.
 */
class MisorderedSegmentsSweepTest {
    @Test
    void theFaultPointSwarmFindsTheMisorderedRecoveryAndItsReplayReproducesIt() throws Exception {
        Class<?> fixture = Class.forName("dev.lockstep.testing.example.MisorderedSegmentsFixture");
        Launch sweep = Launch.run(Map.of("lockstep.strategy", "faultpoints", "lockstep.stopAtFirstFailure", "true"),
                selectClass(fixture));
        assertFalse(sweep.failed().isEmpty(), "no failure in " + sweep.names());
        SimulationTestFailure failure = assertInstanceOf(SimulationTestFailure.class,
                sweep.failed().getFirst().failure());
        assertTrue(failure.getMessage().contains("recovered out of order"), failure.getMessage());
        assertTrue(failure.replay().contains(" faultPoints="), failure.replay());

        Launch replay = Launch.run(Map.of("lockstep.replay", failure.replay()), selectClass(fixture));
        assertEquals(List.of("replay of seed " + failure.seed()), replay.names());
        SimulationTestFailure again = assertInstanceOf(SimulationTestFailure.class,
                replay.failed().getFirst().failure());
        assertEquals(failure.digest(), again.digest());
    }
}
