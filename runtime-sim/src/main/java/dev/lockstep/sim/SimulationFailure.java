package dev.lockstep.sim;

/**
 * A simulated run failed as a whole: it stalled, ran past its simulated time limit, or leaked
 * nondeterminism. The message ends with the line that replays the run.
 */
public final class SimulationFailure extends RuntimeException {
    private final SimConfig config;

    /**
     * @param what what went wrong
     * @param config the run's configuration
     */
    public SimulationFailure(String what, SimConfig config) {
        super("simulation failed with seed " + config.seed() + ": " + what + "\n" + config.replayLine());
        this.config = config;
    }

    /**
     * The configuration that reproduces the failure.
     *
     * @return it
     */
    public SimConfig config() {
        return config;
    }
}
