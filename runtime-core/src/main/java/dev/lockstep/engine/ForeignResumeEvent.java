package dev.lockstep.engine;

import dev.lockstep.engine.task.Fiber;
import dev.lockstep.engine.worker.Worker;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A fiber was made runnable by a thread other than its worker's: another worker or a plain thread, which queues
 * it on the worker's shared queue and wakes the worker's ring. Recorded on that thread, with its stack. Frequent
 * in a busy cross-worker program, so disabled by default.
 */
@Name("lockstep.ForeignResume")
@Label("Lockstep Foreign Resume")
@Category({"Lockstep", "Worker"})
@Description("A fiber was made runnable by a thread other than its worker's")
@Enabled(false)
@StackTrace(true)
final class ForeignResumeEvent extends jdk.jfr.Event {
    @Label("Worker")
    @Description("The fiber's worker")
    int worker;

    @Label("From Worker")
    @Description("The worker of the fiber that woke it, or -1 for a plain thread")
    int fromWorker;

    /** Records a resume of one of {@code worker}'s fibers by the calling thread, whose fiber is {@code caller}. */
    static void record(Worker worker, Fiber caller) {
        ForeignResumeEvent event = new ForeignResumeEvent();
        if (event.shouldCommit()) {
            event.worker = worker.index();
            event.fromWorker = caller == null ? -1 : caller.home().index();
            event.commit();
        }
    }
}
