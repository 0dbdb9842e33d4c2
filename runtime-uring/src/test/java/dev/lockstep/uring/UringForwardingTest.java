package dev.lockstep.uring;

import dev.lockstep.engine.ForwardingCases;
import dev.lockstep.engine.WhiteBoxRuntime;

/** Random forwarding sequences against their model ({@link ForwardingCases}) on io_uring. */
class UringForwardingTest extends ForwardingCases {
    @Override
    protected WhiteBoxRuntime runtime(int seed, int workers) {
        return new UringWhiteBox(workers);
    }
}
