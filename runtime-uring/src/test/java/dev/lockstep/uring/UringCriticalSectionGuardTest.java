package dev.lockstep.uring;

import dev.lockstep.engine.ParkingRequest;
import org.junit.jupiter.api.Test;

/**
 * On io_uring, a fiber that parks inside its worker's critical section ({@code Worker.borrow()}) fails the run
 * with an exception naming the fiber and carrying its stack; the run ends (no wedge) and, as for every test
 * class here, leaves no fd or ring mapping behind.
 */
class UringCriticalSectionGuardTest {

    @Test
    void aFiberThatParksInsideTheCriticalSectionFailsTheRunWithItsStack() {
        ParkingRequest.assertAParkInsideTheCriticalSectionFailsTheRun(
                UringRunner.builder().workers(2).ringEntries(4).build());
    }
}
