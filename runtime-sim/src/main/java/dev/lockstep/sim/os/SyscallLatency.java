package dev.lockstep.sim.os;

import dev.lockstep.kernel.BlockingCall;
import dev.lockstep.sim.audit.Site;

/**
 * Where the latency of a {@link SimKernel}'s synchronous calls goes: a call made by a worker keeps that worker busy,
 * so the clock moves on; a call made inside a {@code BLOCKING_CALL} (which runtime-uring runs on an offload
 * thread) is charged to that request's completion instead, and the workers go on meanwhile. The simulator's
 * thread only.
 */
final class SyscallLatency {
    private final SimClock clock;
    /** A blocking call is running ({@link #runOffloaded}): system call latency is charged to it, not the clock. */
    private boolean offloading;
    private long offloadedNanos;
    /** Where the running blocking call was asked for ({@link BlockingCall#requestedFrom}). */
    private dev.lockstep.kernel.CallSite offloadedFrom;

    SyscallLatency(SimClock clock) {
        this.clock = clock;
    }

    /** What {@link #runOffloaded} returns: the call's result and the latency its system calls took. */
    record Offloaded(int result, long chargedNanos) {
    }

    /**
     * A synchronous call keeps its worker busy for {@code nanos}: the clock moves on by that much. The simulator
     * has one clock, so every worker's time moves with it; what fell due meanwhile runs late, as it would behind
     * a worker thread blocked in the kernel. Inside {@link #runOffloaded}, the latency is the blocking call's.
     *
     * @param nanos the call's latency, {@code >= 0}
     */
    void blockFor(long nanos) {
        if (offloading) {
            offloadedNanos += nanos;
        } else {
            clock.advanceBy(nanos);
        }
    }

    /**
     * Runs the body of a {@code BLOCKING_CALL} now, on the simulator thread, with the latency of each system call
     * inside (drawn as always, at {@link Site#SYSCALL_LATENCY}) summed instead of moving the clock: the worker
     * that submitted it, and every other, goes on meanwhile, and the request completes that much later.
     *
     * @param call the body
     * @return its result and the summed latency
     * @throws IllegalStateException if called from inside a blocking call
     */
    Offloaded runOffloaded(BlockingCall call) {
        if (offloading) {
            throw new IllegalStateException("a blocking call submitted a blocking call");
        }
        offloading = true;
        offloadedNanos = 0;
        offloadedFrom = call.requestedFrom();
        try {
            int result = call.run();
            return new Offloaded(result, offloadedNanos);
        } finally {
            offloading = false;
            offloadedFrom = null;
        }
    }

    /** Where the blocking call running now was asked for, or null outside one. */
    dev.lockstep.kernel.CallSite offloadedFrom() {
        return offloadedFrom;
    }
}
