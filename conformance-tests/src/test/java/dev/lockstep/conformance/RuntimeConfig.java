package dev.lockstep.conformance;

import java.util.List;

/**
 * One runtime configuration a conformance case runs under.
 *
 * @param kind the runtime
 * @param seed the simulator's seed; unused by runtime-uring
 * @param workers the number of workers
 */
public record RuntimeConfig(RuntimeKind kind, long seed, int workers) {

    /** Every configuration, in the order the runs are reported. */
    public static final List<RuntimeConfig> ALL = List.of(
            sim(7, 1),
            sim(7, 2),
            sim(13, 2),
            uring(1),
            uring(2));

    /**
     * A simulator configuration.
     *
     * @param seed the seed
     * @param workers simulated workers
     * @return the configuration
     */
    public static RuntimeConfig sim(long seed, int workers) {
        return new RuntimeConfig(RuntimeKind.SIM, seed, workers);
    }

    /**
     * A runtime-uring configuration.
     *
     * @param workers worker threads
     * @return the configuration
     */
    public static RuntimeConfig uring(int workers) {
        return new RuntimeConfig(RuntimeKind.URING, 0, workers);
    }

    /**
     * The run's display name.
     *
     * @return {@code [sim seed=7 workers=2]} or {@code [uring workers=1]}
     */
    public String displayName() {
        return kind == RuntimeKind.SIM ? "[sim seed=" + seed + " workers=" + workers + "]"
                : "[uring workers=" + workers + "]";
    }

    @Override
    public String toString() {
        return displayName();
    }
}
