package dev.lockstep.engine;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lockstep.Runner;
import dev.lockstep.engine.request.Request;
import dev.lockstep.engine.worker.Worker;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * A request whose {@code kind()} — called by the driver inside its worker's critical section — parks once, as
 * a fiber contending a monitor there would unmount. The abort that follows the failure it causes unparks it.
 * Public for the runtimes' tests (runtime-core's test jar).
 */
public final class ParkingRequest extends Request {
    private volatile boolean parked;

    /**
     * The check every runtime passes: a fiber named {@code parker} on worker 1 of {@code runner} (two workers or
     * more) registers a parking request; the run must fail at once, naming the fiber and carrying its stack,
     * rather than stall.
     *
     * @param runner a fresh runner with at least two workers
     * @throws AssertionError if the run did not fail so
     */
    public static void assertAParkInsideTheCriticalSectionFailsTheRun(Runner runner) {
        IllegalStateException failure = assertThrows(IllegalStateException.class,
                () -> runner.start(ctx -> {
                    ctx.child("parker").spawnOn(1, child -> Worker.current().<Object>register(new ParkingRequest())
                            .await()).await();
                    return null;
                }));
        assertTrue(failure.getMessage().contains("fiber 'parker' of worker 1 unmounted"),
                failure.getMessage());
        assertTrue(Arrays.stream(failure.getStackTrace())
                        .anyMatch(frame -> frame.getMethodName().equals("kind")
                                && frame.getClassName().endsWith("ParkingRequest")),
                () -> "the failure carries the parked fiber's stack: " + Arrays.toString(failure.getStackTrace()));
    }

    @Override
    public Kind kind() {
        if (!parked) {
            parked = true;
            LockSupport.park(this);
        }
        return Kind.IMMEDIATE;
    }

    @Override
    public void runImmediate() {
        succeed("ran");
    }

    @Override
    public String describe() {
        return "a request that parks inside the critical section";
    }
}
