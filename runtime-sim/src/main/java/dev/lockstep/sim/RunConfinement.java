package dev.lockstep.sim;

/**
 * Which threads may touch a {@link Simulation}, and the determinism leaks that threads outside it cause. While the
 * run runs, simulation state is the run's thread's and its fibers' alone ({@link #checkConfined}); an operation
 * or task handle polled, awaited or closed from elsewhere is refused ({@link #checkForeignCaller}) unless the
 * runner allows foreign threads; and a leak seen on any thread is kept, the first one only, for the run's loop,
 * which fails the run with it before its next step ({@link #firstLeak}).
 *
 * <p>Threads: {@link #allowForeignThreads} before the run, on the caller's thread; the rest on any thread.
 */
final class RunConfinement {
    private final Simulation run;
    /** A leak seen on a foreign thread; guarded by itself. */
    private final String[] foreignLeak = new String[1];
    /**
     * Set, under {@code foreignLeak}'s monitor, once it holds a leak: the loop reads this (volatile) before every
     * step and takes the monitor only when it is set. A false read is what reading the array under the monitor
     * would have said at that moment; the first leak stays the one reported, as the array is written once.
     */
    private volatile boolean foreignLeakReported;
    private boolean foreignThreadsAllowed;

    RunConfinement(Simulation run) {
        this.run = run;
    }

    /** See {@link SimRunner#allowingForeignThreads()}. */
    void allowForeignThreads() {
        foreignThreadsAllowed = true;
    }

    boolean foreignThreadsAllowed() {
        return foreignThreadsAllowed;
    }

    /**
     * Refuses an operation or task handle polled, awaited or closed from a thread outside the running simulation,
     * unless foreign threads are allowed.
     *
     * @throws IllegalStateException naming the call and the thread
     */
    void checkForeignCaller(String what) {
        if (run.isRunning() && !foreignThreadsAllowed && !run.isOnSimulation()) {
            throw new IllegalStateException(what + " was called from thread '" + Thread.currentThread().getName()
                    + "', outside the simulation: a simulated operation or task may only be polled, awaited or"
                    + " closed by the simulation's tasks (a plain thread's timing would decide what the run sees)");
        }
    }

    /**
     * Fails loudly when simulation state is touched from another thread, and records the leak.
     *
     * @throws IllegalStateException naming the call and the thread, if the run runs and the caller is not its own
     */
    void checkConfined(String what) {
        if (run.isRunning() && !run.isOnSimulation()) {
            String message = what + " was called from thread '" + Thread.currentThread().getName()
                    + "', outside the simulation; only its tasks may use it";
            reportLeak(message);
            throw new IllegalStateException(message);
        }
    }

    /** Records a determinism leak seen on any thread; the loop fails the run with the first before its next step. */
    void reportLeak(String message) {
        synchronized (foreignLeak) {
            if (foreignLeak[0] == null) {
                foreignLeak[0] = message;
                foreignLeakReported = true;
            }
        }
    }

    /** The first leak {@link #reportLeak} recorded, or null: see {@code foreignLeakReported}. */
    String firstLeak() {
        if (!foreignLeakReported) {
            return null;
        }
        synchronized (foreignLeak) {
            return foreignLeak[0];
        }
    }
}
