package dev.lockstep.sim;

import dev.lockstep.ClosedException;
import dev.lockstep.Handle;
import dev.lockstep.sim.audit.Auditor;
import java.util.Objects;

/**
 * The crash of a {@link Simulation}'s machine: the crash policy in force, whether, when and why the machine
 * crashed, and the {@link Checkpoint} the crash took for the next run of a {@link SimRunner#startAndRecover} loop.
 * A run crashes at most once; a crash is recorded in the audit. Simulator thread only: the crash comes from the
 * run's loop, or from a task on it through {@link SimControl#crash()}.
 */
final class RunCrash {
    private final Simulation run;
    private CrashPolicy policy;
    private boolean crashed;
    private boolean rootDoneAtCrash;
    private Checkpoint checkpoint;
    private String reason;

    RunCrash(Simulation run, CrashPolicy policy) {
        this.run = run;
        this.policy = policy;
    }

    /** The policy a crash of the machine applies to its unsynced data now. */
    CrashPolicy policy() {
        return policy;
    }

    /** {@link SimControl#crashPolicy(CrashPolicy)}: the policy of later crashes, recorded in the audit. */
    void policy(CrashPolicy newPolicy) {
        this.policy = Objects.requireNonNull(newPolicy, "policy");
        run.auditor.record("sim.crashPolicy", Auditor.utf8(newPolicy.name()));
    }

    /** Whether the machine crashed. */
    boolean crashed() {
        return crashed;
    }

    /** Whether the root task had ended when the machine crashed (false if it did not crash). */
    boolean rootDoneAtCrash() {
        return rootDoneAtCrash;
    }

    /** Why the machine crashed; null if it did not. */
    String reason() {
        return reason;
    }

    /** What the crash left, to continue from; null if the machine did not crash. */
    Checkpoint checkpoint() {
        return checkpoint;
    }

    /**
     * The machine crashes now: unsynced data meets the crash policy, the checkpoint is taken, the disk loses
     * power for the tasks still unwinding, every connection is reset and every task is aborted.
     */
    void now(String why, Handle<?> root) {
        if (crashed) {
            return;
        }
        crashed = true;
        reason = why;
        rootDoneAtCrash = root != null && root.isDone();
        run.auditor.record("sim.crash", Auditor.utf8(why), Auditor.u64(run.clock.nowNanos()));
        CrashReport report = run.files.crash(policy);
        StorageImage image = run.files.durableImage();
        checkpoint = new Checkpoint(run.currentConfig(), run.origin(), run.restarts() + 1, run.generator.snapshot(),
                run.auditor.snapshot(), run.clock.nowNanos(), image, report, why);
        run.files.powerOff();
        run.network.resetAll();
        run.engine().abortAll();
    }

    /**
     * {@link SimControl#crash()}: crash from inside a task; the calling task is aborted with the rest.
     *
     * @return the exception the calling task throws
     * @throws IllegalStateException if the run is not a {@link SimRunner#startAndRecover} run
     */
    ClosedException fromTask(String task) {
        if (!run.recoverMode()) {
            throw new IllegalStateException("SimControl.crash() needs a run started with SimRunner.startAndRecover;"
                    + " SimRunner.start runs to the end");
        }
        now("SimControl.crash() in task '" + task + "'", null);
        return new ClosedException("the simulated machine crashed at " + run.now() + " (SimControl.crash() in task '"
                + task + "')");
    }
}
