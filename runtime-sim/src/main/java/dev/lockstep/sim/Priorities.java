package dev.lockstep.sim;

import dev.lockstep.sim.audit.Site;

/**
 * Priority scheduling of fibers, after PCT (Burckhardt et al., "A Randomized Scheduler with Probabilistic
 * Guarantees of Finding Bugs", ASPLOS 2010): an option of the simulator's scheduler ({@link
 * SimConfig#priorities()}), off by default.
 *
 * <p>When on, every fiber is given a random priority when it first becomes runnable (a draw at {@link
 * Site#FIBER_PRIORITY}), and whenever the scheduler runs a fiber it runs the runnable one of highest priority, on
 * whichever worker or {@link SimCluster} node it lives; when to run a fiber rather than a worker's service turn or
 * a slip of the clock is still the seed's uniform choice. At {@code depth - 1} change points, fiber steps drawn
 * uniformly in {@code [1, steps]} when the run starts ({@link Site#PRIORITY_CHANGE_POINT}), the fiber that just ran
 * drops below every other, the {@code i}-th change point lower than the one before. A bug that needs {@code d}
 * ordering constraints between fibers is found by a run of depth {@code d} with probability at least
 * {@code 1 / (n * steps^(d-1))} for {@code n} fibers, where uniform random scheduling may need exponentially many.
 * Depth 1 (no change points) already runs one fiber as long as it stays runnable, which random scheduling almost
 * never does.
 *
 * <p>After {@code steps} fiber steps the scheduler returns to the uniform choice: a fiber of high priority that
 * never stops being runnable (a spin that yields) would otherwise keep every other fiber from running.
 *
 * @param depth the bug depth aimed at: {@code depth - 1} change points; 0 for off, else 1 to {@value #MAX_DEPTH}
 * @param steps the fiber steps over which change points are spread and priorities hold, 1 to
 *              {@value #MAX_STEPS}; ignored when off
 */
public record Priorities(int depth, long steps) {
    /** Off: the scheduler's uniform choice, the default. */
    public static final Priorities OFF = new Priorities(0, 1);
    /** The deepest run allowed. */
    public static final int MAX_DEPTH = 64;
    /** The longest horizon allowed. */
    public static final long MAX_STEPS = 1L << 40;

    /**
     * Checks both values.
     *
     * @throws InvalidConfigException naming a depth or a step count out of range
     */
    public Priorities {
        if (depth < 0 || depth > MAX_DEPTH) {
            throw new InvalidConfigException("Priorities.depth", "Priorities.depth must be 0 (off) to " + MAX_DEPTH
                    + ", was " + depth);
        }
        if (steps < 1 || steps > MAX_STEPS) {
            throw new InvalidConfigException("Priorities.steps", "Priorities.steps must be 1 to " + MAX_STEPS
                    + ", was " + steps);
        }
    }

    /**
     * Priority scheduling of the given depth over the given fiber steps.
     *
     * @param depth 1 to {@value #MAX_DEPTH}
     * @param steps 1 to {@value #MAX_STEPS}
     * @return the priorities
     * @throws InvalidConfigException naming a value out of range
     */
    public static Priorities of(int depth, long steps) {
        if (depth == 0) {
            throw new InvalidConfigException("Priorities.depth", "Priorities.depth must be 1 to " + MAX_DEPTH
                    + " (use Priorities.OFF for none), was 0");
        }
        return new Priorities(depth, steps);
    }

    /**
     * Whether priority scheduling is on.
     *
     * @return depth above 0
     */
    public boolean on() {
        return depth > 0;
    }

    /**
     * The text a replay line carries: {@code depth:steps}, or {@code off}.
     *
     * @return e.g. {@code 3:2000}
     */
    @Override
    public String toString() {
        return on() ? depth + ":" + steps : "off";
    }

    /**
     * Reads {@link #toString()} back.
     *
     * @param text {@code depth:steps} or {@code off}
     * @return the priorities
     * @throws IllegalArgumentException naming text that is neither
     */
    public static Priorities parse(String text) {
        if (text.equals("off")) {
            return OFF;
        }
        int colon = text.indexOf(':');
        try {
            if (colon > 0 && text.matches("[0-9]+:[0-9]+")) {
                return of(Integer.parseInt(text.substring(0, colon)), Long.parseLong(text.substring(colon + 1)));
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw new IllegalArgumentException("priorities are 'depth:steps' or 'off', was '" + text + "'");
    }
}
