package dev.lockstep.sim;

/**
 * Counts of what one simulated run did, for throughput measurements: see {@link SimRunner#stats()}.
 *
 * @param fiberSteps fiber continuations run by the scheduler: each is one switch to a fiber and back
 * @param ringCompletions ring requests completed by the simulated kernel (reads, writes, syncs, sends, receives,
 *                        accepts, connects, cancels, no-ops)
 * @param systemCalls synchronous calls made to the simulated kernel (open, close, fsync of directories,
 *                    socket set-up, ...)
 * @param auditEvents events recorded in the auditor's chain during the run
 * @param simulatedNanos simulated time the run covered
 * @param serviceSteps scheduler steps that ran workers' service turns: in {@link Scheduling#SERVICE_FIRST} mode a
 *                     step that serviced every worker with work, in {@link Scheduling#INTERLEAVED} mode one half of
 *                     one worker's turn (see {@code EngineHooks.serviceHalf}), or a whole turn whose half 0 had
 *                     nothing to do (see {@code EngineHooks.serviceTurnFromHalfOne})
 * @param clockSlips scheduler steps that moved the clock to the next event although work was runnable
 *                   ({@link Scheduling#INTERLEAVED} mode only)
 * @param draws raw 64-bit values drawn from the run's seeded generator, for the scheduler's choices, faults,
 *              latencies and the rest (a bounded draw may take more than one)
 * @param serviceTurns workers' service turns that ran to their end, in either mode: each made one ring enter
 */
public record SimStats(long fiberSteps, long ringCompletions, long systemCalls, long auditEvents,
                       long simulatedNanos, long serviceSteps, long clockSlips, long draws, long serviceTurns) {

    /**
     * Simulated I/O operations: ring completions plus system calls.
     *
     * @return the sum
     */
    public long ioOperations() {
        return ringCompletions + systemCalls;
    }

    /**
     * Steps of the scheduler that ran something: fiber steps, service steps and clock slips. What a run costs is
     * about proportional to them: each is one seeded choice among what could run, its audit events and the work
     * it ran. A service-first step that serviced workers and then ran a fiber counts twice.
     *
     * @return the sum
     */
    public long schedulerSteps() {
        return fiberSteps + serviceSteps + clockSlips;
    }
}
