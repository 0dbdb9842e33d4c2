package dev.lockstep.uring;

import dev.lockstep.engine.SeedOperationCases;
import dev.lockstep.engine.WhiteBoxRuntime;
import java.util.List;

/** The seed's {@code Operation} tests ({@link SeedOperationCases}) on io_uring. */
class UringSeedOperationTest extends SeedOperationCases {
    @Override
    protected List<WhiteBoxRuntime> runtimes() {
        return UringWhiteBox.ALL;
    }
}
