package dev.lockstep.sim;

import dev.lockstep.engine.task.Fiber;
import dev.lockstep.engine.task.Fibers;
import dev.lockstep.engine.worker.Worker;
import dev.lockstep.sim.audit.Auditor;
import dev.lockstep.sim.os.SimClock;

/**
 * What a traced {@link Simulation} (one that {@link DeterminismCheck} runs through {@code SimRunner.traced()})
 * keeps beside its audit events: for each event the worker, fiber, simulated time and user line it came from, and
 * after each fiber step a {@code fiber.parked} event naming the line where the fiber stopped. Simulator thread only
 * (its fibers included).
 */
final class RunTrace implements Auditor.TraceContext {
    private final StepSettler steps;
    private final SimClock clock;

    RunTrace(StepSettler steps, SimClock clock) {
        this.steps = steps;
        this.clock = clock;
    }

    @Override
    public int worker() {
        Worker worker = Worker.current();
        Fiber stepping = steps.stepFiber();
        return worker != null ? worker.index() : stepping != null ? stepping.home().index() : -1;
    }

    @Override
    public String fiber() {
        Fiber fiber = Fibers.current();
        if (fiber == null && Worker.current() == null) {
            fiber = steps.stepFiber(); // the fiber about to run
        }
        return fiber == null ? "" : fiber.label();
    }

    @Override
    public String where() {
        Fiber stepping = steps.stepFiber();
        if (Worker.current() != null || stepping == null || stepping.thread() == null) {
            return "";
        }
        String at = LeakWatch.where(stepping.thread().getStackTrace());
        return at.isEmpty() ? "" : at.substring(", at ".length());
    }

    @Override
    public long nanos() {
        return clock.nowNanos();
    }

    /**
     * In a traced run, where the fiber that just ran stopped: the event that shows two runs parting at the line
     * where one fiber took another path, which audits of kernel calls show only later.
     */
    static void recordParked(Auditor auditor, Fiber fiber) {
        Thread thread = fiber.thread();
        String at = thread == null || thread.getState() == Thread.State.TERMINATED ? ""
                : LeakWatch.where(thread.getStackTrace());
        String line = at.isEmpty() ? "(its task ended)" : at.substring(", at ".length());
        auditor.record("fiber.parked", Auditor.utf8(line), Auditor.u32(fiber.home().index()),
                Auditor.utf8(fiber.label()));
    }
}
