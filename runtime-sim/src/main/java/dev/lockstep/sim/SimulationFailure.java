package dev.lockstep.sim;

/**
 * A simulated run failed as a whole: it stalled, ran past its simulated time limit, or leaked
 * nondeterminism. The message says what happened, where in simulated time, and ends with the line that replays
 * the run (the configuration that reproduces it, and the call site that ran it).
 */
public final class SimulationFailure extends RuntimeException {
    private final SimConfig config;
    private final String replayLine;

    /**
     * A failure of a run of {@code config}.
     *
     * @param what what went wrong
     * @param config the run's configuration
     */
    public SimulationFailure(String what, SimConfig config) {
        this(what, config, config.replayLine(), null);
    }

    SimulationFailure(String what, SimConfig config, String replayLine, String callSite) {
        super("simulation failed with seed " + config.seed() + ": " + what + "\n" + replayLine
                + (callSite == null ? "" : "  [run from " + callSite + "]"));
        this.config = config;
        this.replayLine = replayLine;
    }

    /**
     * The configuration that reproduces the failure: rerun the same task (for a run resumed from a checkpoint,
     * the same {@code startAndRecover} loop) with {@code SimRunner.of(config())} — unless a harness ran it
     * ({@link SimRunner#replayedBy}): then the {@link #replayLine()} is what reruns it.
     *
     * @return it
     */
    public SimConfig config() {
        return config;
    }

    /**
     * The replay line, as the message ends with it.
     *
     * @return the line
     */
    public String replayLine() {
        return replayLine;
    }
}
