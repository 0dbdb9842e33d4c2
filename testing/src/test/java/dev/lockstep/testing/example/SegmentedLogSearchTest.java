package dev.lockstep.testing.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Task;
import dev.lockstep.sim.FaultPoints;
import dev.lockstep.testing.FaultConfig;
import dev.lockstep.testing.SearchResult;
import dev.lockstep.testing.SearchSettings;
import dev.lockstep.testing.SearchStrategy;
import dev.lockstep.testing.SimulationTestFailure;
import dev.lockstep.testing.Simulations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * What the README says of {@link SegmentedLog}: its fault point takes the rollover a short test never reaches, so a
 * recovery that orders segments by name ({@code seg-10} before {@code seg-2}, met only past ten segments) is
 * found by the fault-point swarm ({@code faultpoints}); with fault points off no seed rolls over, and the sweep
 * says so by its {@code sometimes} label.
 */
class SegmentedLogSearchTest {
    private static final int SEEDS = 20;
    private static final Simulations.Plan PLAN = Simulations.Plan.of(FaultConfig.parse("torn-writes"))
            .withCrashes(3, Duration.ofMillis(200));
    private static final Simulations.Plan NO_FAULT_POINTS = PLAN.withSearch(
            new SearchSettings(FaultPoints.OFF, SearchSettings.DEFAULT.priorities(), SearchSettings.DEFAULT.chain()));

    /** The body of {@link SegmentedLogTest} as a task, with what it acknowledged kept per run. */
    private static Supplier<Task<Void>> body(boolean numericOrder) {
        return () -> {
            List<Long> acknowledged = new ArrayList<>();
            return ctx -> {
                var random = dev.lockstep.sim.SimRunner.control(ctx).random();
                try (SegmentedLog log = SegmentedLog.open(ctx, numericOrder)) {
                    List<Long> recovered = log.entries();
                    if (recovered.size() < acknowledged.size()
                            || !acknowledged.equals(recovered.subList(0, acknowledged.size()))) {
                        throw new AssertionError("lost entries: had " + acknowledged.size() + ", recovered "
                                + recovered.size());
                    }
                    acknowledged.clear();
                    acknowledged.addAll(recovered);
                    for (int i = 0; i < 100; i++) {
                        long value = random.nextLong();
                        log.append(value);
                        acknowledged.add(value);
                        ctx.sleep(Duration.ofMillis(1));
                    }
                }
                return null;
            };
        };
    }

    @Test
    void theFaultPointTakesTheRolloverAndFindsARecoveryOrderBug() {
        SearchResult withoutPoints = SearchStrategy.named("random").search(1, SEEDS / 2, Duration.ofDays(1),
                NO_FAULT_POINTS, body(false));
        assertFalse(withoutPoints.found(), withoutPoints.replayText());
        assertEquals(java.util.Set.of("recovered more than one segment"), withoutPoints.neverSatisfied());

        SearchResult withPoints = SearchStrategy.named("faultpoints").search(1, SEEDS, Duration.ofDays(1), PLAN,
                body(false));
        assertTrue(withPoints.found(), "the fault-point swarm did not find the recovery order bug in " + SEEDS + " seeds");
        SimulationTestFailure again = assertThrows(SimulationTestFailure.class,
                () -> Simulations.replay(withPoints.replayText(), body(false).get()));
        assertEquals(withPoints.failure().digest(), again.digest());

        SearchResult fixed = SearchStrategy.named("faultpoints").search(1, SEEDS / 2, Duration.ofDays(1), PLAN, body(true));
        assertFalse(fixed.found(), fixed.found() ? fixed.failure().getMessage() : "");
        assertTrue(fixed.neverSatisfied().isEmpty(), fixed.neverSatisfied().toString());
    }
}
