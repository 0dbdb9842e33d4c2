package dev.lockstep.sim;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.engine.ParkingRequest;
import dev.lockstep.engine.Worker;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The simulator has one thread, so nothing is ever contended there; a fiber that parks inside its worker's
 * critical section ({@code Worker.borrow()}) must still fail the run at once, naming the fiber and carrying its
 * stack, as on runtime-uring, rather than stall it.
 */
class CriticalSectionGuardTest {

    @Test
    void aFiberThatParksInsideTheCriticalSectionFailsTheSimulationWithItsStack() {
        SimRunner runner = SimRunner.of(SimConfig.builder().seed(11).workers(2).build());
        IllegalStateException failure = assertThrows(IllegalStateException.class, () -> runner.start(ctx -> {
            ctx.child("parker").spawnOn(1, child -> Worker.current().<Object>register(new ParkingRequest()).await())
                    .await();
            return null;
        }));
        assertTrue(failure.getMessage().contains("fiber 'parker' of worker 1 unmounted"), failure.getMessage());
        assertTrue(Arrays.stream(failure.getStackTrace()).anyMatch(frame -> frame.getMethodName().equals("kind")
                        && frame.getClassName().endsWith("ParkingRequest")),
                () -> "the failure carries the parked fiber's stack: " + Arrays.toString(failure.getStackTrace()));
    }
}
