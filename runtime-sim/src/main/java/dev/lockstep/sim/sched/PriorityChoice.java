package dev.lockstep.sim.sched;

import dev.lockstep.engine.task.Fiber;
import dev.lockstep.sim.Priorities;
import dev.lockstep.sim.audit.Generator;
import dev.lockstep.sim.audit.Site;
import java.util.List;
import java.util.function.Predicate;

/**
 * The priority scheduling of fibers ({@link Priorities}, PCT): which fiber's continuation a step that runs a fiber
 * picks while priority scheduling is on and its horizon not yet passed, each fiber's initial priority, and the
 * change points after which the fiber that ran drops to a low priority. It decides only among the continuations the
 * {@link Scheduler} says may run; which ones may, and whether a step runs a fiber at all, are the scheduler's.
 *
 * <p>It draws only through the simulation's {@link Generator}, at {@link Site#PRIORITY_CHANGE_POINT} and
 * {@link Site#FIBER_PRIORITY}, and only when priority scheduling is on, so a run without it draws what it drew
 * before. It may use the fibers' scheduling priority and nothing else of the run. Confined to the simulator's
 * thread, as the scheduler is.
 */
final class PriorityChoice {

    private final Generator generator;
    /** Priority scheduling of fibers; {@link Priorities#OFF} for the uniform choice. */
    private final Priorities priorities;
    /** The fiber steps after which the fiber that ran drops to a low priority, ascending; see {@link Priorities}. */
    private final long[] changePoints;
    /** The index in {@link #changePoints} of the next change point. */
    private int nextChange;

    /** Draws the change points (when priority scheduling is on). */
    PriorityChoice(Generator generator, Priorities priorities) {
        this.generator = generator;
        this.priorities = priorities;
        // Drawn only when priority scheduling is on, so a run without it draws what it drew before.
        this.changePoints = new long[priorities.on() ? priorities.depth() - 1 : 0];
        for (int i = 0; i < changePoints.length; i++) {
            changePoints[i] = generator.nextLongBetween(Site.PRIORITY_CHANGE_POINT, 1, priorities.steps());
        }
        java.util.Arrays.sort(changePoints);
    }

    /** Gives {@code fiber} its initial priority if priority scheduling is on and it has none yet. */
    void assignInitial(Fiber fiber) {
        if (priorities.on() && fiber.schedulingPriority() == 0) {
            // PCT's initial priorities: distinct random values above every change point's (1 to depth - 1).
            fiber.schedulingPriority(Priorities.MAX_DEPTH
                    + generator.nextLong(Site.FIBER_PRIORITY, Long.MAX_VALUE - Priorities.MAX_DEPTH));
        }
    }

    /**
     * Whether a step after {@code fiberSteps} fiber steps chooses fibers by priority: priority scheduling is on and
     * its horizon not yet passed.
     */
    boolean prioritized(long fiberSteps) {
        return priorities.on() && fiberSteps < priorities.steps();
    }

    /**
     * The index in {@code ready} of the continuation {@code may} accepts whose fiber has the highest priority, the
     * first in the list on a tie.
     *
     * @throws AssertionError if {@code may} accepts none
     */
    int highestPriority(List<Scheduler.Ready> ready, Predicate<Scheduler.Ready> may) {
        int best = -1;
        long bestPriority = Long.MIN_VALUE;
        for (int i = 0; i < ready.size(); i++) {
            Scheduler.Ready candidate = ready.get(i);
            if (may.test(candidate) && candidate.fiber().schedulingPriority() > bestPriority) {
                best = i;
                bestPriority = candidate.fiber().schedulingPriority();
            }
        }
        if (best < 0) {
            throw new AssertionError("no runnable fiber to prioritize");
        }
        return best;
    }

    /** After {@code fiber} ran as fiber step number {@code fiberSteps}: drops it at a change point. */
    void afterFiberStep(Fiber fiber, long fiberSteps) {
        while (nextChange < changePoints.length && changePoints[nextChange] == fiberSteps) {
            // PCT's i-th change point: the fiber that just ran drops to depth - i, below every initial priority
            // and below the change points before it.
            nextChange++;
            fiber.schedulingPriority(priorities.depth() - nextChange);
        }
    }
}
