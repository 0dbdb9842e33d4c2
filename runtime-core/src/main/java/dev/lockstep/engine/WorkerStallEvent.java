package dev.lockstep.engine;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * A worker thread ran its fibers for longer than the threshold without turning its ring: a fiber that computes
 * or blocks the carrier keeps every other fiber, timer and completion of the worker waiting. Enabled with a
 * threshold of 20 ms (a recording's settings may change it); shorter runs cost a timestamp and nothing recorded.
 *
 * <p>Committed by the worker thread after its fibers ran. On JDK 25, the first event a worker thread commits after
 * one of its fibers committed an event is not in the recording (an event of the fiber's own, or
 * {@code lockstep.ForeignResume} from it); the next ones are.
 */
@Name("lockstep.WorkerStall")
@Label("Lockstep Worker Stall")
@Category({"Lockstep", "Worker"})
@Description("A worker ran its fibers past the threshold without turning its ring")
@Threshold("20 ms")
@StackTrace(false)
final class WorkerStallEvent extends jdk.jfr.Event {
    @Label("Worker")
    int worker;

    @Label("Fibers")
    @Description("Fiber continuations run in that stretch")
    int fibers;
}
