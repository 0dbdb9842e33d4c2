package dev.lockstep.sim;

import dev.lockstep.engine.SeedOperationCases;
import dev.lockstep.engine.WhiteBoxRuntime;
import java.util.List;

/** The seed's {@code Operation} tests ({@link SeedOperationCases}) on the simulator. */
class SimSeedOperationTest extends SeedOperationCases {
    @Override
    protected List<WhiteBoxRuntime> runtimes() {
        return SimWhiteBox.ALL;
    }
}
