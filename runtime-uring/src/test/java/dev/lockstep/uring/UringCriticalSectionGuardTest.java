package dev.lockstep.uring;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.engine.ParkingRequest;
import dev.lockstep.engine.Worker;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * On io_uring, a fiber that parks inside its worker's critical section ({@code Worker.borrow()}) fails the run
 * with an exception naming the fiber and carrying its stack; the run ends (no wedge) and, as for every test
 * class here, leaves no fd or ring mapping behind.
 */
class UringCriticalSectionGuardTest {

    @Test
    void aFiberThatParksInsideTheCriticalSectionFailsTheRunWithItsStack() {
        UringRunner runner = UringRunner.builder().workers(2).ringEntries(4).build();
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
