package dev.lockstep.testing;

/**
 * A simulated test failed: the message names the seed, the lifetime, the faults and the replay line; the cause is
 * what the test threw (or the {@link dev.lockstep.sim.SimulationFailure}). An {@link AssertionError}, so test
 * frameworks report it as a failure, not an error.
 */
public final class SimulationTestFailure extends AssertionError {
    private final long seed;
    private final transient FaultConfig faults;
    private final String replay;
    private final String digest;

    /**
     * @param message the full message
     * @param seed the failing seed
     * @param faults the faults that were on
     * @param replay the text {@link Simulations#replay} reruns the failure from, or null if no seed is involved
     * @param digest the audit digest at the failure, or null if the simulator did not run
     * @param cause what failed
     */
    public SimulationTestFailure(String message, long seed, FaultConfig faults, String replay, String digest,
                                 Throwable cause) {
        super(message, cause);
        this.seed = seed;
        this.faults = faults;
        this.replay = replay;
        this.digest = digest;
    }

    /**
     * What {@link Simulations#replay} takes to rerun this failure exactly, crashes included.
     *
     * @return the text, or null if the failure involves no seed (the JVM cannot run the simulator)
     */
    public String replay() {
        return replay;
    }

    /**
     * The audit digest of the failing lifetime's run: a replay that fails the same way ends with the same one.
     *
     * @return the hex digest, or null if the simulator did not run
     */
    public String digest() {
        return digest;
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
