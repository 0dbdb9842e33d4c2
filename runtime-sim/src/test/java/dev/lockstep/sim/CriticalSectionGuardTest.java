package dev.lockstep.sim;

import dev.lockstep.engine.ParkingRequest;
import org.junit.jupiter.api.Test;

/**
 * The simulator has one thread, so nothing is ever contended there; a fiber that parks inside its worker's
 * critical section ({@code Worker.borrow()}) must still fail the run at once, naming the fiber and carrying its
 * stack, as on runtime-uring, rather than stall it.
 */
class CriticalSectionGuardTest {

    @Test
    void aFiberThatParksInsideTheCriticalSectionFailsTheSimulationWithItsStack() {
        ParkingRequest.assertAParkInsideTheCriticalSectionFailsTheRun(
                SimRunner.of(SimConfig.builder().seed(11).workers(2).build()));
    }
}
