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
 */
public record SimStats(long fiberSteps, long ringCompletions, long systemCalls, long auditEvents,
                       long simulatedNanos) {

    /**
     * Simulated I/O operations: ring completions plus system calls.
     *
     * @return the sum
     */
    public long ioOperations() {
        return ringCompletions + systemCalls;
    }
}
