package dev.lockstep.sim;

import dev.lockstep.AbortedException;
import dev.lockstep.Handle;
import dev.lockstep.Poll;

/**
 * What a {@link Simulation} ends with: its first failure (the first wins; what happens while the run shuts down
 * does not change it), and at the end that failure weighed against what the run left open, an interrupt of its
 * caller and the root task's own exception. The verdict must be the same on every run of a seed, so nothing that
 * depends on a thread outside the simulation enters it. Simulator thread only.
 */
final class RunVerdict {
    private final Simulation run;
    private final RunCrash crash;
    /** The first failure, with when it happened; null while the run is fine. */
    private String failure;

    RunVerdict(Simulation run, RunCrash crash) {
        this.run = run;
        this.crash = crash;
    }

    /** Whether the run has its verdict (its first failure): it only shuts down from then on. */
    boolean failed() {
        return failure != null;
    }

    /**
     * Takes {@code message} as the run's failure unless it has one: the first wins.
     *
     * @param message the failure, with when it happened
     */
    void first(String message) {
        if (failure == null) {
            failure = message;
        }
    }

    /**
     * The run's end, once its workers retired: throws what the run failed with, or answers what rides along
     * beside the root task's own exception.
     *
     * @param leaked what the run holds at its end beyond what it started with ({@link RunLeaks#report}), or null
     * @param rootHandle the root task's handle, or null if it never started
     * @param interrupted whether the run ended because its caller was interrupted
     * @return the leak to attach as suppressed to the root task's own failure, or null
     * @throws AbortedException if the caller was interrupted
     * @throws SimulationFailure if the run failed: its first failure, joined by what it left open where that counts
     */
    SimulationFailure end(String leaked, Handle<?> rootHandle, boolean interrupted) {
        // A runtime failure (a waker callback threw, a ring failed) is the run's verdict: what its aborted tasks
        // left open is listed by SimRunner.leaks() but does not replace the failure the user must see.
        // After a determinism leak, what the run holds at its end (a fiber still inside Thread.join or not) depends
        // on how far a thread outside the simulation got: the verdict, which must be the same on every run of the
        // seed, is the leak alone.
        boolean determinismLeak = failure != null && failure.startsWith("determinism leak");
        SimulationFailure leakBesideRootFailure = null;
        RunRecord record = run.record;
        if (leaked != null && run.config().failOnLeaks() && run.engine().failure() == null && !determinismLeak
                && !interrupted) {
            if (failure == null && rootFailedOnItsOwn(rootHandle)) {
                // The task's exception is what the user must see (SimRunner's contract): what it left open rides
                // along as a suppressed failure, with the same message the leak alone would have failed with.
                leakBesideRootFailure = new SimulationFailure(leaked, run.origin(), record.replayLine(),
                        record.caller());
            } else {
                failure = failure == null ? leaked : failure + "; and " + leaked;
            }
        }
        if (interrupted) {
            // As runtime-uring answers: the caller asked the run to stop, so it stopped; nothing else is claimed.
            throw new AbortedException(Simulation.INTERRUPTED);
        }
        if (failure != null) {
            throw new SimulationFailure(failure, run.origin(), record.replayLine(), record.caller());
        }
        return leakBesideRootFailure;
    }

    /**
     * Whether the root task ended by throwing, of its own accord: not aborted by a crash that came first (in a
     * {@link SimRunner#startAndRecover} run the crash, not the task, is then the outcome).
     */
    private boolean rootFailedOnItsOwn(Handle<?> rootHandle) {
        if (rootHandle == null || !rootHandle.isDone() || (crash.crashed() && !crash.rootDoneAtCrash())) {
            return false;
        }
        Poll<?> outcome = rootHandle.poll(null);
        try {
            outcome.get();
            return false;
        } catch (RuntimeException | Error thrown) {
            return true;
        }
    }
}
