package dev.lockstep.testing;

/**
 * A simulated test failed: the message names the seed, the lifetime, the faults and the replay line; the cause is
 * what the test threw (or the {@link dev.lockstep.sim.SimulationFailure}). An {@link AssertionError}, so test
 * frameworks report it as a failure, not an error.
 */
public final class SimulationTestFailure extends AssertionError {
    private final long seed;
    private final transient FaultConfig faults;

    /**
     * @param message the full message
     * @param seed the failing seed
     * @param faults the faults that were on
     * @param cause what failed
     */
    public SimulationTestFailure(String message, long seed, FaultConfig faults, Throwable cause) {
        super(message, cause);
        this.seed = seed;
        this.faults = faults;
    }

    /**
     * The failing seed.
     *
     * @return it
     */
    public long seed() {
        return seed;
    }

    /**
     * The faults that were on.
     *
     * @return them
     */
    public FaultConfig faults() {
        return faults;
    }
}
