package dev.lockstep.sim;

import dev.lockstep.engine.ForwardingCases;
import dev.lockstep.engine.WhiteBoxRuntime;

/** Random forwarding sequences against their model ({@link ForwardingCases}) on the simulator, one seed a try. */
class SimForwardingTest extends ForwardingCases {
    @Override
    protected WhiteBoxRuntime runtime(int seed, int workers) {
        return new SimWhiteBox(seed, workers);
    }
}
