package dev.lockstep.engine;

import java.util.concurrent.locks.LockSupport;

/**
 * A request whose {@code kind()} — called by the driver inside its worker's critical section — parks once, as
 * a fiber contending a monitor there would unmount. The abort that follows the failure it causes unparks it.
 * Public for the runtimes' tests (runtime-core's test jar).
 */
public final class ParkingRequest extends Request {
    private volatile boolean parked;

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
