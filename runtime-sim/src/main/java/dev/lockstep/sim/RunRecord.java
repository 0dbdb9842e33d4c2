package dev.lockstep.sim;

import dev.lockstep.sim.sched.Scheduler;

/**
 * What a {@link Simulation} reports about itself, however it ended: its audit digest and counts (as they were
 * when a determinism leak failed it, since what the run did after that depends on a thread outside it), the CPU
 * time of its thread, the line that replays it, and the user's call site a failure names. Simulator thread only,
 * but for the setters, which the runner calls on its caller's thread before the run.
 */
final class RunRecord {
    /**
     * The JVM's thread bean, looked up once: {@code ManagementFactory.getThreadMXBean()} searches the platform's
     * beans on every call, about a twentieth of a short run's set-up. The bean is the JVM's one instance and
     * thread-safe; a simulation only reads its own thread's CPU time from it.
     */
    private static final java.lang.management.ThreadMXBean THREAD_CPU =
            java.lang.management.ManagementFactory.getThreadMXBean();
    /** The run's own classes: their frames are the simulator's, never the user's. */
    private static final String[] RUN_CLASSES = {Simulation.class.getName(), StepSettler.class.getName(),
        RunCrash.class.getName(), RunLeaks.class.getName(), RunTrace.class.getName(),
        RunConfinement.class.getName(), RunRecord.class.getName()};

    private final Simulation run;
    private final long startNanos;
    private final long startEvents;
    /** The generator's draws when this run began (a run restarted from a checkpoint goes on from its count). */
    private final long startDraws;
    /** The digest and the counts when a determinism leak failed the run (see {@link #freezeAtLeak}); else null. */
    private String digestAtLeak;
    private SimStats statsAtLeak;
    /** See {@link SimRunner#replayedBy}; null for the simulator's own line. */
    private String replayedBy;
    /** The user's call site of the runner, found on the caller's thread before the run moved to its carrier. */
    private String callSite;
    /** The thread's CPU time when the run began; -1 if it cannot be measured. */
    private long cpuAtStart = -1;
    /** The CPU time of the simulator's thread over the run; -1 until it ended or if it cannot be measured. */
    private long cpuNanos = -1;

    /** Takes the run's audit, generator and clock as they are now as where its counts start. */
    RunRecord(Simulation run, long startNanos) {
        this.run = run;
        this.startNanos = startNanos;
        this.startEvents = run.auditor.events();
        this.startDraws = run.generator.draws();
    }

    /** The run's audit digest: after a determinism leak, as it was when the leak was found. */
    String digest() {
        return digestAtLeak != null ? digestAtLeak : run.auditor.digest();
    }

    /** The run's counts: after a determinism leak, as they were when the leak was found. */
    SimStats stats() {
        if (statsAtLeak != null) {
            return statsAtLeak;
        }
        Scheduler scheduler = run.scheduler();
        return new SimStats(scheduler == null ? 0 : scheduler.fiberSteps(), run.kernel.ringCompletions,
                run.kernel.systemCalls, run.auditor.events() - startEvents, run.clock.nowNanos() - startNanos,
                scheduler == null ? 0 : scheduler.serviceSteps(), scheduler == null ? 0 : scheduler.clockSlips(),
                run.generator.draws() - startDraws, scheduler == null ? 0 : scheduler.serviceTurns());
    }

    /** A determinism leak failed the run: its digest and counts are what came before, from now on. */
    void freezeAtLeak() {
        digestAtLeak = run.auditor.digest();
        statsAtLeak = stats();
    }

    /** The run begins on the calling thread: its CPU time is measured from here. */
    void cpuStarts() {
        cpuAtStart = THREAD_CPU.isCurrentThreadCpuTimeSupported() ? THREAD_CPU.getCurrentThreadCpuTime() : -1;
    }

    /** The run's loop ended on the calling thread, the one {@link #cpuStarts} was called on. */
    void cpuEnds() {
        if (cpuAtStart >= 0) {
            cpuNanos = THREAD_CPU.getCurrentThreadCpuTime() - cpuAtStart;
        }
    }

    /** See {@link SimRunner#simulatorCpuNanos()}. */
    long cpuNanos() {
        return cpuNanos;
    }

    /** Sets the replay line a harness gave the runner (see {@link SimRunner#replayedBy}); before the run. */
    void replayedBy(String line) {
        this.replayedBy = line;
    }

    /** Sets the user's call site of the runner (see {@link #caller()}); before the run. */
    void callSite(String site) {
        this.callSite = site;
    }

    /**
     * The line that reruns this run: the one its runner was given ({@link SimRunner#replayedBy}), else the first
     * run's configuration and which run of the chain this is.
     */
    String replayLine() {
        if (replayedBy != null) {
            return replayedBy;
        }
        int restarts = run.restarts();
        if (restarts == 0) {
            return run.config().replayLine();
        }
        SimConfig origin = run.origin();
        return "replay: run " + (restarts + 1) + " of the startAndRecover loop over SimRunner.of(" + origin.toJava()
                + "), each run after the first built with SimRunner.from(the previous run's checkpoint)  [seed "
                + origin.seed() + ", config " + origin.configHash() + "]";
    }

    /** The user's call site of the runner, for the replay line: the first frame outside Lockstep and the JDK. */
    String caller() {
        return callSite != null ? callSite : callerOf(new Throwable().getStackTrace());
    }

    /** The first frame outside Lockstep and the JDK in {@code stack}: where the user called the runner. */
    static String callerOf(StackTraceElement[] stack) {
        for (StackTraceElement frame : stack) {
            String type = frame.getClassName();
            boolean simulator = isRunFrame(type) || type.equals(SimRunner.class.getName())
                    || type.startsWith(SimRunner.class.getName() + "$");
            if (!simulator && !type.startsWith("dev.lockstep.engine.") && !type.startsWith("java.")
                    && !type.startsWith("jdk.")) {
                return frame.toString();
            }
        }
        return null;
    }

    /** Whether a stack frame of {@code type} is the run's own: of one of its classes, nested ones included. */
    static boolean isRunFrame(String type) {
        for (String own : RUN_CLASSES) {
            if (type.startsWith(own) && (type.length() == own.length() || type.charAt(own.length()) == '$')) {
                return true;
            }
        }
        return false;
    }
}
