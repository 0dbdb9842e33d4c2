package dev.lockstep.uring;

import dev.lockstep.engine.WhiteBoxRuntime;
import dev.lockstep.engine.WorkerInternalsCases;
import java.util.List;

/**
 * The engine's white-box cases of placement, a closing worker and raw kernel requests
 * ({@link WorkerInternalsCases}) on io_uring.
 */
class UringWorkerInternalsTest extends WorkerInternalsCases {
    @Override
    protected List<WhiteBoxRuntime> runtimes() {
        return UringWhiteBox.ALL;
    }
}
